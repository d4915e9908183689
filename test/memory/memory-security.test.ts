import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';

describe('memory paths stay inside memory_dir', () => {
  let fake: FakeOpenAI;
  let app: App;
  let dir: string;
  let outside: string;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    const t = await makeTestApp(fake);
    app = t.app;
    dir = t.dir;
    outside = path.join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.md'), 'top secret');
    symlinkSync(outside, path.join(app.config.memory_dir, 'escape'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(app.config.memory_dir, 'link.md'));
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    app.tools.execute({ name, arguments: args, conversationId: 'c', turnId: 't', origin: { channel: 'cli', chatId: 'x' } });

  it.each(['../x.md', '../../etc/passwd.md', '/etc/passwd', '/tmp/x.md', 'notes/../../x.md', 'escape/new.md', 'link.md', 'escape/secret.md'])(
    'refuses to write through %s and writes nothing outside',
    async (target) => {
      const before = readdirSync(outside).sort();
      const result = await call('memory_write', { path: target, content: 'pwned' });
      expect(result.result.success).toBe(false);
      expect(readdirSync(outside).sort()).toEqual(before);
      expect(existsSync(path.join(dir, 'x.md'))).toBe(false);
    },
  );

  it.each(['../outside/secret.md', '/etc/passwd', 'link.md', 'escape/secret.md'])('refuses to read %s', async (target) => {
    const result = await call('memory_read', { path: target });
    expect(result.result.success).toBe(false);
    expect(result.result.output).not.toContain('top secret');
    expect(result.result.output).not.toContain('root:');
  });

  it('checks a path again on the next call: a link put where a read found nothing is refused', async () => {
    const first = await call('memory_read', { path: 'later.md' });
    expect(first.result.output).toMatch(/does not exist/);
    symlinkSync(path.join(outside, 'secret.md'), path.join(app.config.memory_dir, 'later.md'));
    const second = await call('memory_read', { path: 'later.md' });
    expect(second.result.success).toBe(false);
    expect(second.result.output).not.toContain('top secret');
  });

  it('does not list or search files behind a link that leads out', async () => {
    const listing = await call('memory_read', {});
    expect(listing.result.output).not.toContain('secret.md');
    const search = await call('memory_search', { query: 'secret' });
    expect(search.result.output).not.toContain('top secret');
  });

  it('allows an ordinary nested path', async () => {
    const result = await call('memory_write', { path: 'notes/people.md', content: 'Bob likes tea' });
    expect(result.result.success).toBe(true);
    expect((await call('memory_read', { path: 'notes/people.md' })).result.output).toBe('Bob likes tea');
  });
});
