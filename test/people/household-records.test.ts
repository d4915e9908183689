// Who did what in a household: usage per person (familiar usage --person), audit rows, the console's People page.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startConsoleApp, type ConsoleApp } from '../helpers/console.js';
import { captureIo } from '../helpers/io.js';

const PEOPLE = {
  ann: { role: 'owner', ids: { telegram: [1001], console: true } },
  ben: { role: 'member', ids: { telegram: [1002] }, budget: { daily_tokens: 50000 }, timezone: 'Europe/Berlin' },
};

describe('a household\'s records', () => {
  let llm: FakeOpenAI;
  let site: ConsoleApp;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    site = await startConsoleApp(llm, { people: PEOPLE });
    llm.script({ content: 'hi ann', usage: { prompt_tokens: 100, completion_tokens: 10 } }, { content: 'hi ben', usage: { prompt_tokens: 200, completion_tokens: 20 } });
    await site.app.turns.start({ text: 'hello', origin: { channel: 'cli', chatId: 'x' }, source: 'cli' });
    await site.app.turns.start({ text: 'hello', origin: { channel: 'telegram', chatId: '1002', userId: '1002' }, source: 'chat' });
  });

  afterAll(async () => {
    await site.app.close(0);
    await llm.close();
  });

  const usage = async (...args: string[]) => {
    const io = captureIo();
    const code = await runCli(['usage', ...args, '--config', site.configPath], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('breaks the tokens down per person, and today against each budget', async () => {
    const result = await usage('--person');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^ann\s+100\s+10\s+110\s+1$/m);
    expect(result.out).toMatch(/^ben\s+200\s+20\s+220\s+1$/m);
    expect(result.out).toContain('  ben: 220 tokens of 50,000 (49,780 left)');
    expect(result.out).toContain('  ann: 110 tokens, no budget of their own');
  });

  it('shows one person with a name, and refuses a name nobody has', async () => {
    const one = await usage('--person', 'ben', '--json');
    expect(JSON.parse(one.out)).toMatchObject({ people: [{ person: 'ben', totalTokens: 220 }], today: [{ person: 'ben', tokens: 220, budget: 50000 }] });
    const nobody = await usage('--person', 'zoe');
    expect(nobody.code).toBe(2);
    expect(nobody.err).toBe('familiar usage: zoe is not in people: (familiar people list)\n');
  });

  it('gives the owner their own tasks on the terminal (familiar tasks), in their folder', async () => {
    const io = captureIo();
    expect(await runCli(['tasks', 'add', 'water the plants', '--config', site.configPath], io)).toBe(0);
    expect(readFileSync(path.join(path.dirname(site.configPath), 'memory/people/ann/tasks.md'), 'utf8')).toContain('water the plants');
    const listed = captureIo();
    expect(await runCli(['tasks', 'list', '--config', site.configPath], listed)).toBe(0);
    expect(listed.out()).toContain('water the plants');
  });

  it('lists the people on the console\'s People page: roles, ids, zones, tokens today', async () => {
    const client = await site.login();
    const page = await client.text('/console/pairing');
    expect(page).toContain('<h2>Household</h2>');
    expect(page).toMatch(/<td>ann<\/td><td>owner<\/td><td>telegram 1001; console<\/td><td>Europe\/Paris<\/td>\s*<td>110<\/td>/);
    expect(page).toMatch(/<td>ben<\/td><td>member<\/td><td>telegram 1002<\/td><td>Europe\/Berlin<\/td>\s*<td>220 of 50,000<\/td>/);
  });
});
