import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir } from '../helpers/app.js';
import { MAIN, startDaemon, type Daemon } from '../helpers/daemon.js';
import { KEY, spawnInPty } from '../helpers/pty.js';

// The getting-started promise, end to end: a person with no files runs `familiar init` in a terminal, answers its
// questions, and `familiar start` then answers their first Telegram message — no file edited by hand.
describe('familiar init in a terminal, then familiar start', () => {
  let llm: FakeOpenAI;
  let telegram: FakeTelegram;
  let daemon: Daemon | undefined;
  let dir = '';
  const person = { chatId: 4242, userId: 4242, firstName: 'Ada', username: 'ada' };

  beforeAll(async () => {
    llm = await startOpenAiServer({ models: ['gpt-test'] });
    telegram = await startTelegramServer();
  });
  afterAll(async () => {
    await daemon?.term();
    await Promise.all([llm.close(), telegram.close()]);
  });

  it('gets a person from nothing to a first Telegram answer', async () => {
    dir = tempDir('familiar-init-');
    const session = spawnInPty([process.execPath, MAIN, 'init', '--no-sandbox'], {
      cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TZ: 'UTC' },
    });
    let at = await session.waitFor('Which LLM should answer?');
    session.type(KEY.down.repeat(4) + KEY.enter); // "Another OpenAI-compatible server"
    at = await session.waitFor("The server's base URL", { from: at });
    session.type(KEY.backspace.repeat(40) + llm.baseUrl + KEY.enter);
    at = await session.waitFor('API key', { from: at });
    session.type(llm.apiKey + KEY.enter);
    at = await session.waitFor('Which model?', { from: at });
    session.type(KEY.enter); // gpt-test, the one the server lists
    at = await session.waitFor('The LLM answers: gpt-test', { from: at, timeoutMs: 30_000 });
    at = await session.waitFor('Your time zone', { from: at });
    expect(session.screen().slice(at)).toContain('UTC');
    session.type(KEY.enter);
    at = await session.waitFor('Talk to it on Telegram?', { from: at });
    session.type(KEY.enter);
    // The fake Bot API stands for a self-hosted one: its address is asked here, not only as a flag.
    at = await session.waitFor('Which Bot API server?', { from: at });
    session.type(KEY.down + KEY.enter);
    at = await session.waitFor("The Bot API server's address", { from: at });
    session.type(KEY.backspace.repeat(40) + telegram.apiRoot + KEY.enter);
    at = await session.waitFor('Telegram bot token', { from: at });
    session.type(telegram.token + KEY.enter);
    at = await session.waitFor('send any message to @familiar_test_bot', { from: at });
    telegram.sendUserMessage({ ...person, text: 'hello?' });
    at = await session.waitFor('A message from Ada (@ada), user id 4242. Is that you?', { from: at });
    session.type(KEY.enter);
    at = await session.waitFor('Talk to it on Discord?', { from: at });
    session.type(KEY.enter); // no
    at = await session.waitFor('Talk to it on Signal', { from: at });
    session.type(KEY.enter); // no
    at = await session.waitFor('Talk to it on Slack?', { from: at });
    session.type(KEY.enter); // no
    at = await session.waitFor('Talk to it on Matrix?', { from: at });
    session.type(KEY.enter); // no
    at = await session.waitFor('Send the results of jobs you add in the terminal to you on Telegram (scheduler.default_chat: telegram:4242)?', { from: at });
    session.type(KEY.enter); // yes
    at = await session.waitFor('A web console in your browser', { from: at });
    session.type('n'); // no: a fixed port would clash with other tests' daemons (init --yes --console covers yes)
    at = await session.waitFor('Voice: transcribe your voice notes', { from: at });
    session.type(KEY.enter); // no (the default when the LLM is not OpenAI)
    at = await session.waitFor('Calendar: connect your CalDAV calendar', { from: at });
    session.type(KEY.enter); // no (the default)
    at = await session.waitFor('Turn on the heartbeat?', { from: at });
    session.type(KEY.enter); // no (off until asked for)
    at = await session.waitFor('Done.', { from: at });
    expect(await session.exited).toBe(0);

    // What it wrote: secrets in .env only, private; the config names them.
    const config = readFileSync(path.join(dir, 'config.yaml'), 'utf8');
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    expect(config).not.toContain(llm.apiKey);
    expect(config).not.toContain(telegram.token);
    expect(config).toMatch(/allowed_users: \[ 4242 \]/);
    expect(config).toContain(`api_root: ${telegram.apiRoot}`);
    expect(config).toMatch(/default_chat: telegram:4242/);
    expect(env).toContain(`TELEGRAM_BOT_TOKEN=${telegram.token}`);
    expect(env).toContain(`LLM_API_KEY=${llm.apiKey}`);
    expect(statSync(path.join(dir, '.env')).mode & 0o777).toBe(0o600);
    // The key never showed on the terminal (a password prompt masks it).
    expect(session.screen()).not.toContain(llm.apiKey);
    // The bot greeted the person, and the set-up message is not left for the daemon to answer.
    expect(telegram.messagesTo(person.chatId).map((message) => message.text)).toEqual([expect.stringMatching(/^Hello Ada! I know you now/)]);

    // The daemon, from those files alone (no environment variables): the person's first message is answered.
    daemon = startDaemon(dir, { TZ: 'UTC' });
    await daemon.ready;
    llm.script({ content: 'Forty-two.' });
    telegram.sendUserMessage({ ...person, text: 'What is six times seven?' });
    const answer = await telegram.waitFor(() => telegram.messagesTo(person.chatId).find((message) => message.text === 'Forty-two.'), 20_000);
    expect(answer.text).toBe('Forty-two.');
    expect(llm.requests.at(-1)?.headers.authorization).toBe(`Bearer ${llm.apiKey}`);
    expect(telegram.messagesTo(person.chatId)).toHaveLength(2);
    expect(await daemon.term()).toBe(0);
    daemon = undefined;
  }, 120_000);

  it('leaves no file of the person\'s data that another account can read or write', () => {
    const data = path.join(dir, 'data');
    const shared = [data, ...readdirSync(data, { recursive: true, encoding: 'utf8' }).map((name) => path.join(data, name)), path.join(dir, '.env')]
      .filter((file) => !lstatSync(file).isSymbolicLink())
      .filter((file) => (statSync(file).mode & 0o077) !== 0)
      .map((file) => `${path.relative(dir, file)} ${(statSync(file).mode & 0o777).toString(8)}`);
    expect(shared).toEqual([]);
    // What it holds: the database, the log and the memory the daemon seeded.
    expect(readdirSync(data)).toEqual(expect.arrayContaining(['familiar.db', 'logs', 'memory']));
  });
});
