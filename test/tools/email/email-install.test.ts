import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../../src/daemon.js';
import { ConfigError } from '../../../src/errors.js';
import { resolveEmailSettings } from '../../../src/tools/email/settings.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { callEmail } from './fixtures.js';

const imap = { host: 'imap.example.com', user: 'me@example.com', password: 'imap-pass' };
const emptySmtp = { host: '', user: '', password: '', from: '' };

describe('email installer', () => {
  let fake: FakeOpenAI;
  const apps: App[] = [];
  const build = async (overrides: Record<string, unknown>): Promise<TestApp> => {
    const t = await makeTestApp(fake, overrides);
    apps.push(t.app);
    return t;
  };

  beforeAll(async () => {
    fake = await startOpenAiServer();
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close(0);
  });
  afterAll(async () => {
    await fake.close();
  });

  it('registers no tool and logs one line when tools.email is absent', async () => {
    const { app, logs } = await build({});
    expect(app.tools.get('email')).toBeUndefined();
    expect(app.parts.some((module) => module.name === 'email')).toBe(false);
    expect(logs.filter((line) => line.includes('email: no tools.email section; the email tool is off'))).toHaveLength(1);
  });

  it('registers no tool when the IMAP login is incomplete, naming the empty keys', async () => {
    const { app, logs } = await build({ tools: { email: { imap: { host: 'imap.example.com', user: 'me@example.com' } } } });
    expect(app.tools.get('email')).toBeUndefined();
    expect(logs.some((line) => line.includes('email: tools.email.imap.password is empty; the email tool is off'))).toBe(true);
  });

  it('registers the tool without connecting, and send says when no SMTP server is configured', async () => {
    const { app } = await build({ tools: { email: { imap, allow_send: true } } });
    const entry = app.tools.get('email');
    expect(entry?.tool.external).toBe(true);
    expect(entry?.tool.description).toContain('send and reply are unavailable (no SMTP server configured)');
    const outcome = await callEmail(app, { action: 'send', to: 'a@example.com', subject: 's', body: 'b' });
    expect(outcome.result.success).toBe(false);
    expect(outcome.result.output).toContain('No SMTP server is configured (tools.email.smtp.host)');
  });

  it('fails at start with the key path when the CA is not a PEM certificate or cannot be read', async () => {
    await expect(build({ tools: { email: { imap, ca: 'not a certificate' } } })).rejects.toThrow(ConfigError);
    await expect(build({ tools: { email: { imap, ca: 'not a certificate' } } })).rejects.toThrow('config: tools.email.ca: is not a PEM certificate');
    await expect(build({ tools: { email: { imap, ca_file: 'missing-ca.pem' } } })).rejects.toThrow(/config: tools\.email\.ca_file: cannot read .*missing-ca\.pem/);
  });
});

describe('email settings', () => {
  it('defaults to implicit TLS on 993 for IMAP and STARTTLS on 587 for SMTP', () => {
    const result = resolveEmailSettings({ imap, smtp: { ...emptySmtp, host: 'smtp.example.com' }, allow_send: false }, '/');
    expect(result).toMatchObject({
      enabled: true,
      settings: {
        imap: { host: 'imap.example.com', port: 993, secure: true },
        smtp: { host: 'smtp.example.com', port: 587, secure: false, user: 'me@example.com', password: 'imap-pass', from: 'me@example.com' },
      },
    });
  });

  it('picks STARTTLS for IMAP on 143 or secure: false, and implicit TLS for SMTP on 465', () => {
    const on143 = resolveEmailSettings({ imap: { ...imap, port: 143 }, smtp: { ...emptySmtp, host: 's', port: 465 }, allow_send: false }, '/');
    expect(on143).toMatchObject({ settings: { imap: { port: 143, secure: false }, smtp: { port: 465, secure: true } } });
    const insecureFlag = resolveEmailSettings({ imap: { ...imap, secure: false }, smtp: emptySmtp, allow_send: false }, '/');
    expect(insecureFlag).toMatchObject({ settings: { imap: { port: 143, secure: false } } });
    expect(insecureFlag.enabled && insecureFlag.settings.smtp).toBeUndefined();
  });

  it('keeps a separate SMTP login and sender when given', () => {
    const result = resolveEmailSettings({
      imap, smtp: { host: 'smtp.example.com', user: 'relay-user', password: 'relay-pass', from: 'Me <me@example.com>' }, allow_send: true,
    }, '/');
    expect(result).toMatchObject({ settings: { allowSend: true, smtp: { user: 'relay-user', password: 'relay-pass', from: 'Me <me@example.com>' } } });
  });
});
