import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import type { AnyTool } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp } from '../helpers/app.js';
import { askWith, recordingPrompter } from '../helpers/approval.js';

const origin = { channel: 'cli', chatId: 'approvals', userId: 'owner' };

function sendTool(sent: Array<Record<string, unknown>>): AnyTool {
  return {
    name: 'send_message',
    description: 'Send a message to someone.',
    risk: 'high',
    parameters: { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } }, required: ['to', 'text'] },
    async execute(params: { to: string; text: string }) {
      sent.push(params);
      return { success: true, output: `sent to ${params.to}` };
    },
  };
}

const fetchTool: AnyTool = {
  name: 'fetch_page',
  description: 'GET is low risk, POST high.',
  risk: (params: { method: string }) => (params.method === 'GET' ? 'low' : 'high'),
  parameters: { type: 'object', properties: { method: { type: 'string', enum: ['GET', 'POST'] } }, required: ['method'] },
  async execute(params: { method: string }) {
    return { success: true, output: `${params.method} done` };
  },
};

function lastToolMessage(fake: FakeOpenAI): string {
  const messages = fake.requests.at(-1)?.body.messages ?? [];
  const tool = messages.filter((message) => message.role === 'tool').at(-1);
  return typeof tool?.content === 'string' ? tool.content : '';
}

function auditDecision(app: App, tool: string): string | null {
  const row = app.db.prepare('SELECT decision FROM audit WHERE tool = ? ORDER BY id DESC LIMIT 1').get(tool) as { decision: string | null } | undefined;
  return row?.decision ?? null;
}

describe('approvals for high-risk calls', () => {
  let fake: FakeOpenAI;
  let app: App;
  let sent: Array<Record<string, unknown>>;

  const build = async (overrides: Record<string, unknown> = {}) => {
    app = (await makeTestApp(fake, overrides)).app;
    sent = [];
    app.tools.register(sendTool(sent));
    app.tools.register(fetchTool);
  };

  beforeEach(async () => {
    fake = await startOpenAiServer();
  });

  afterEach(async () => {
    await app.close(0);
    await fake.close();
  });

  const sendScript = () => fake.script({ toolCalls: [{ name: 'send_message', arguments: { to: 'anna@example.org', text: 'see you at 8' } }] }, { content: 'done' });

  it('asks the person with the tool and its arguments, and runs the call when approved', async () => {
    await build();
    const prompter = recordingPrompter('approve');
    sendScript();
    await app.turns.start({ text: 'tell Anna', origin, source: 'cli', approve: askWith(app, prompter) });
    expect(prompter.prompts).toHaveLength(1);
    expect(prompter.prompts[0]?.text).toMatch(/send_message is a high-risk tool/);
    expect(prompter.prompts[0]?.text).toContain('\nto: "anna@example.org"');
    expect(prompter.prompts[0]?.chatId).toBe('approvals');
    expect(sent).toEqual([{ to: 'anna@example.org', text: 'see you at 8' }]);
    expect(auditDecision(app, 'send_message')).toBe('approved by cli:owner');
  });

  it('does not run a denied call and tells the model not to retry', async () => {
    await build();
    const prompter = recordingPrompter('deny');
    sendScript();
    await app.turns.start({ text: 'tell Anna', origin, source: 'cli', approve: askWith(app, prompter) });
    expect(sent).toEqual([]);
    expect(lastToolMessage(fake)).toMatch(/^ERROR: The call to send_message was not approved: the person said no\. Do not retry it/);
    expect(auditDecision(app, 'send_message')).toBe('denied: the person said no');
  });

  it('treats no answer within approval.timeout_s as a denial', async () => {
    await build({ approval: { timeout_s: 0.2 } });
    const prompter = recordingPrompter('hang');
    sendScript();
    const result = await app.turns.start({ text: 'tell Anna', origin, source: 'cli', approve: askWith(app, prompter) });
    expect(result.status).toBe('ok');
    expect(prompter.prompts[0]?.timeoutMs).toBe(200);
    expect(sent).toEqual([]);
    expect(auditDecision(app, 'send_message')).toBe('denied: no answer within 0.2 s');
  });

  it('uses the prompter a channel registered when the turn brings no handler', async () => {
    await build();
    const prompter = recordingPrompter('approve');
    app.approvals?.registerPrompter('cli', prompter);
    sendScript();
    await app.turns.start({ text: 'tell Anna', origin, source: 'cli' });
    expect(prompter.prompts).toHaveLength(1);
    expect(sent).toHaveLength(1);
  });

  it('denies, and says why, when nobody can be asked', async () => {
    await build();
    sendScript();
    await app.turns.start({ text: 'tell Anna', origin, source: 'cli' });
    expect(sent).toEqual([]);
    expect(lastToolMessage(fake)).toMatch(/nobody can be asked to approve send_message on cli/);
  });

  it('says outside content is the reason, not auto_approve, when a tainted conversation cannot ask', async () => {
    await build({ approval: { auto_approve: ['send_message'] } });
    sendScript();
    await app.turns.start({ text: 'tell Anna what the page says', origin, source: 'cli', taint: ['a web page at example.org'] });
    expect(sent).toEqual([]);
    const refusal = lastToolMessage(fake);
    expect(refusal).toContain('outside content was read in this conversation (a web page at example.org), so send_message needs a person\'s yes');
    expect(refusal).toMatch(/familiar ask on a terminal.*--new.*\/reset/s);
    expect(refusal).not.toContain('auto_approve');
  });

  it('skips the question for auto-approved tools in an untainted turn', async () => {
    await build({ approval: { auto_approve: ['send_message'] } });
    const prompter = recordingPrompter('deny');
    sendScript();
    await app.turns.start({ text: 'tell Anna', origin, source: 'cli', approve: askWith(app, prompter) });
    expect(prompter.prompts).toHaveLength(0);
    expect(sent).toHaveLength(1);
    expect(auditDecision(app, 'send_message')).toBe('approved by auto_approve');
  });

  it('asks only for the calls that are high-risk by their arguments', async () => {
    await build();
    const prompter = recordingPrompter('deny');
    fake.script({ toolCalls: [{ name: 'fetch_page', arguments: { method: 'GET' } }, { name: 'fetch_page', arguments: { method: 'POST' } }] }, { content: 'ok' });
    await app.turns.start({ text: 'fetch', origin, source: 'cli', approve: askWith(app, prompter) });
    expect(prompter.prompts.map((prompt) => prompt.text)).toEqual([expect.stringContaining('method: "POST"')]);
    const rows = app.db.prepare("SELECT success, decision FROM audit WHERE tool = 'fetch_page' ORDER BY id").all();
    expect(rows).toEqual(expect.arrayContaining([{ success: 1, decision: null }, { success: 0, decision: 'denied: the person said no' }]));
  });

  it('denies a high-risk call in an unattended run that has no approve handler, with the reason', async () => {
    await build();
    sendScript();
    const conversationId = app.conversations.ensure('job-nightly', 'scheduler', 'nightly', 'job');
    const result = await app.agent.runTurn({ conversationId, text: 'send the report', origin: { channel: 'scheduler', chatId: 'nightly' }, source: 'job', unattended: true });
    expect(result.status).toBe('ok');
    expect(sent).toEqual([]);
    expect(lastToolMessage(fake)).toMatch(/unattended run \(job or skill\) and nobody can approve send_message; list it in the job's or skill's approve list/);
  });

  it("lets an unattended run's own approve list decide", async () => {
    await build({ approval: { auto_approve: [] } });
    const approveList = new Set(['send_message']);
    sendScript();
    const conversationId = app.conversations.ensure('job-listed', 'scheduler', 'listed', 'job');
    await app.agent.runTurn({
      conversationId, text: 'send the report', origin: { channel: 'scheduler', chatId: 'listed' }, source: 'job', unattended: true,
      approve: async (request) => (approveList.has(request.tool) ? { approved: true, by: 'job approve list' } : { approved: false, reason: 'not in the job approve list' }),
    });
    expect(sent).toHaveLength(1);
    expect(auditDecision(app, 'send_message')).toBe('approved by job approve list');
  });

  it('a pending approval does not hold up other chats', async () => {
    await build();
    let release: (() => void) | undefined;
    const prompter = recordingPrompter('approve');
    const slow = { ask: (prompt: Parameters<typeof prompter.ask>[0]) => new Promise<'approve'>((resolve) => { prompter.prompts.push(prompt); release = () => resolve('approve'); }) };
    fake.handle((request) => {
      const user = request.body.messages.find((message) => message.role === 'user');
      if (request.body.messages.some((message) => message.role === 'tool')) return { content: 'sent' };
      return user?.content === 'tell Anna' ? { toolCalls: [{ name: 'send_message', arguments: { to: 'anna@example.org', text: 'hi' } }] } : { content: 'other chat answered' };
    });
    const waiting = app.turns.start({ text: 'tell Anna', origin, source: 'cli', approve: askWith(app, slow) });
    while (prompter.prompts.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const other = await app.turns.start({ text: 'hello', origin: { channel: 'cli', chatId: 'other' }, source: 'cli' });
    expect(other.text).toBe('other chat answered');
    expect(sent).toEqual([]);
    release?.();
    expect((await waiting).text).toBe('sent');
    expect(sent).toHaveLength(1);
  });
});
