import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { MAIN } from '../helpers/daemon.js';
import { KEY, spawnInPty } from '../helpers/pty.js';

const MCP_SERVER = fileURLToPath(new URL('../fakes/mcp-server.mjs', import.meta.url));

// `familiar ask` in a real terminal (the built daemon under a pseudo-terminal): a call that needs a person's yes is
// asked y/N there, as `familiar chat` does, instead of being refused for want of someone to ask.
describe('familiar ask in a terminal', () => {
  let llm: FakeOpenAI;
  let dir: string;

  beforeAll(async () => {
    llm = await startOpenAiServer();
    dir = tempDir('familiar-ask-pty-');
    // The high-risk tool: an MCP server's (MCP tools are high-risk unless trust: low).
    writeTestConfig(dir, llm, { log: { level: 'warn', format: 'json' }, tools: { mcp: { servers: { fake: { command: process.execPath, args: [MCP_SERVER] } } } } });
  });

  afterAll(async () => llm.close());

  const ask = (answer: string) => {
    llm.script({ toolCalls: [{ name: 'mcp__fake__echo', arguments: { text: 'from the terminal' } }] }, { content: 'all done' });
    const session = spawnInPty([process.execPath, MAIN, 'ask', '--new', '--config', `${dir}/config.yaml`, 'save a note'], {
      cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, TZ: 'UTC', TEST_LLM_KEY: llm.apiKey },
    });
    return {
      session,
      async answered() {
        const at = await session.waitFor('approve? [y/N] ');
        expect(session.screen().slice(0, at)).toMatch(/mcp:fake:echo \(mcp__fake__echo\) is a high-risk tool/);
        session.type(`${answer}${KEY.enter}`);
        await session.waitFor('all done', { from: at });
        const toolMessage = llm.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool').at(-1);
        return { exit: await session.exited, toolMessage: String(toolMessage?.content) };
      },
    };
  };

  it('asks y/N and runs the call on y', async () => {
    const { exit, toolMessage } = await ask('y').answered();
    expect(toolMessage).toMatch(/echo: from the terminal/);
    expect(exit).toBe(0);
  }, 60_000);

  it('does not run the call on anything but y', async () => {
    const { exit, toolMessage } = await ask('n').answered();
    expect(toolMessage).toMatch(/not approved: the person said no/);
    expect(exit).toBe(0);
  }, 60_000);
});
