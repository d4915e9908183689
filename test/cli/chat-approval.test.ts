import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { scriptedTerminal } from '../helpers/io.js';

const MCP_SERVER = fileURLToPath(new URL('../fakes/mcp-server.mjs', import.meta.url));

describe('familiar chat approvals', () => {
  let fake: FakeOpenAI;
  let configPath: string;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    // The high-risk tool: an MCP server's (MCP tools are high-risk unless trust: low).
    configPath = writeTestConfig(tempDir(), fake, {
      llm: { api_key: fake.apiKey },
      tools: { mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER] } } } },
    });
  });

  afterEach(async () => {
    await fake.close();
  });

  async function chatWithAnswer(answer: string | undefined) {
    const term = scriptedTerminal();
    fake.script(
      { toolCalls: [{ name: 'mcp__fake__echo', arguments: { text: 'from the chat' } }] },
      { content: 'all done' },
    );
    const finished = runCli(['chat', '--config', configPath, '--log-level', 'silent'], term.io);
    await term.waitFor('you> ');
    term.say('save a note');
    await term.waitFor('approve? [y/N]');
    const prompt = term.out();
    if (answer !== undefined) term.say(answer);
    await term.waitFor('familiar> ');
    term.say('/exit');
    expect(await finished).toBe(0);
    return { prompt, out: term.out() };
  }

  it('asks y/N on the terminal and runs the call on y', async () => {
    const { prompt } = await chatWithAnswer('y');
    expect(prompt).toMatch(/mcp:fake:echo \(mcp__fake__echo\) is a high-risk tool/);
    expect(prompt).toContain('\ntext: "from the chat"');
    const toolMessage = fake.requests[1]?.body.messages.filter((message) => message.role === 'tool').at(-1);
    expect(toolMessage?.content).toMatch(/echo: from the chat/);
  });

  it('denies on anything but y', async () => {
    await chatWithAnswer('n');
    const toolMessage = fake.requests[1]?.body.messages.filter((message) => message.role === 'tool').at(-1);
    expect(toolMessage?.content).toMatch(/not approved: the person said no/);
  });

  it('counts no answer within approval.timeout_s as no', async () => {
    configPath = writeTestConfig(tempDir(), fake, {
      llm: { api_key: fake.apiKey },
      approval: { timeout_s: 0.3 },
      tools: { mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER] } } } },
    });
    await chatWithAnswer(undefined);
    const toolMessage = fake.requests[1]?.body.messages.filter((message) => message.role === 'tool').at(-1);
    expect(toolMessage?.content).toMatch(/not approved: no answer within 0\.3 s/);
  });

  it('reads every line of input piped in at once, answers each in order, and exits 0 at the end of input', async () => {
    const term = scriptedTerminal();
    fake.handle((request) => ({ content: `re: ${String(request.body.messages.at(-1)?.content)}` }));
    term.io.stdin.end('first\n/help\nsecond\n');
    expect(await runCli(['chat', '--config', configPath, '--log-level', 'silent'], term.io)).toBe(0);
    expect(term.out()).toContain('familiar> re: first');
    expect(term.out()).toContain('Commands: /reset');
    expect(term.out()).toContain('familiar> re: second');
    expect(term.out().indexOf('re: first')).toBeLessThan(term.out().indexOf('re: second'));
  });
});
