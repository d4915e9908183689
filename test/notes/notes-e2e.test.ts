import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, dayOf, instantOf } from '../../src/notes/dates.js';
import type { RecordedRequest } from '../fakes/openai-server.js';
import { OWNER_DC, OWNER_TG, startChannelRig, type ChannelRig } from '../helpers/channels.js';
import { startWebServer, type WebServer } from '../helpers/reach.js';

// A person on Telegram (and Discord), the fake LLM choosing tools, the real part writing files and scheduler jobs.

const lastUser = (request: RecordedRequest): string => {
  const content = request.body.messages.filter((message) => message.role === 'user').at(-1)?.content;
  return typeof content === 'string' ? content : '';
};
const lastTool = (request: RecordedRequest): string => String(request.body.messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '');

let rig: ChannelRig | undefined;
let site: WebServer | undefined;
afterEach(async () => {
  await rig?.close();
  await site?.close();
  rig = undefined;
  site = undefined;
});

async function start(): Promise<ChannelRig> {
  site = await startWebServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<html><head><title>Why sleep matters</title><meta name="author" content="Dr. Rest"></head><body><nav>Menu Home</nav><article><h1>Why sleep matters</h1>${'<p>Adults need seven to nine hours of sleep a night, and a regular bedtime helps the body keep its rhythm through the week.</p>'.repeat(8)}</article></body></html>`);
  });
  rig = await startChannelRig({ which: ['telegram', 'discord'], overrides: { tools: { http: { allow_private: true } }, scheduler: { default_chat: `telegram:${OWNER_TG}` } } });
  return rig;
}

function say(r: ChannelRig, text: string): void {
  r.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, text });
}

async function reply(r: ChannelRig, predicate: (text: string) => boolean): Promise<string> {
  try {
    const message = await r.telegram.waitFor(() => r.telegram.messagesTo(OWNER_TG).find((entry) => predicate(entry.text ?? '')), 8000);
    return message.text ?? '';
  } catch (error) {
    throw new Error(`no such reply; the chat has: ${JSON.stringify(r.telegram.messagesTo(OWNER_TG).map((entry) => entry.text))}`, { cause: error });
  }
}

describe('notes and tasks end to end (fake LLM and Telegram)', () => {
  it('save this page, remind me to pay rent monthly, what is due this week, tick it by hand, plan my week', async () => {
    const r = await start();
    const memory = r.app.config.memory_dir;
    const tasksFile = path.join(memory, 'tasks.md');
    const zone = r.app.config.timezone;
    const today = dayOf(Date.now(), zone);
    const url = `${site?.origin ?? ''}/sleep`;
    r.llm.handle((request) => {
      const user = lastUser(request);
      const last = request.body.messages.at(-1);
      if (last?.role === 'tool') {
        const result = lastTool(request);
        if (user.startsWith('save this page')) return { content: `Saved. ${result.split('\n')[0] ?? ''}` };
        if (user.startsWith("what's due")) return { content: `Due this week:\n${result}` };
        if (user.startsWith("Let's plan")) return { content: `Your plan is saved. ${result.split('\n')[0] ?? ''}` };
        return { content: `Done: ${result}` };
      }
      if (user.startsWith('save this page')) return { toolCalls: [{ name: 'web_scrape', arguments: { url, save: true } }] };
      if (user.startsWith('remind me to pay rent')) {
        return { toolCalls: [{ name: 'task_create', arguments: { description: 'Pay rent', recurrence: 'every month on the 1st', reminder: '09:00' } }] };
      }
      if (user.startsWith("what's due")) return { toolCalls: [{ name: 'task_search', arguments: { due_before: addDays(today, 7) } }] };
      if (user.startsWith("Let's plan")) {
        return { toolCalls: [{ name: 'plan_create', arguments: { body: 'Rest more; pay the bills early.', tasks: [{ description: 'Go to bed by 23:00', due: addDays(today, 1) }] } }] };
      }
      return { content: `echo: ${user}` };
    });

    // "save this page"
    say(r, `save this page ${url}`);
    expect(await reply(r, (text) => text.startsWith('Saved.'))).toContain('notes/Why sleep matters.md');
    const note = readFileSync(path.join(memory, 'notes', 'Why sleep matters.md'), 'utf8');
    expect(note).toContain(`source: ${url}`);
    expect(note).toContain('author: Dr. Rest');
    expect(note).toContain('Adults need seven to nine hours');
    expect(note).not.toContain('Menu Home');

    // "remind me to pay rent on the 1st of every month"
    say(r, 'remind me to pay rent on the 1st of every month');
    await reply(r, (text) => text.startsWith('Done:'));
    const line = readFileSync(tasksFile, 'utf8').split('\n').find((entry) => entry.includes('Pay rent')) ?? '';
    const first = /📅 (\d{4}-\d\d-01)/.exec(line)?.[1] ?? '';
    expect(line).toMatch(new RegExp(`^- \\[ \\] Pay rent 🔁 every month on the 1st 📅 ${first} ⏰ ${first} 09:00 🆔 ([a-z0-9]{6})$`));
    const id = /🆔 ([a-z0-9]{6})/.exec(line)?.[1] ?? '';
    const scheduler = r.app.scheduler;
    const job = scheduler?.get(`task-${id}`);
    expect(job).toMatchObject({ kind: 'reminder', prompt: 'Pay rent', runAt: instantOf(first, '09:00', zone), origin: { channel: 'telegram', chatId: String(OWNER_TG) } });

    // The reminder fires (run now rather than wait for the 1st): delivered to the chat that asked.
    await scheduler?.runNow(`task-${id}`);
    expect(await reply(r, (text) => text.startsWith('⏰ Pay rent'))).toContain(`Done? /tasks done ${id}`);

    // "what's due this week?" with a task added by hand in the editor meanwhile, due today: on a Saturday or a Sunday,
    // a day after tomorrow is next week, which the plan below leaves out.
    writeFileSync(tasksFile, `${readFileSync(tasksFile, 'utf8')}- [ ] Renew passport 📅 ${today}\n`);
    say(r, "what's due this week?");
    const due = await reply(r, (text) => text.startsWith('Due this week'));
    expect(due).toContain('Renew passport');

    // Ticked by hand: the next message reconciles, the job is gone, a late fire sends nothing.
    writeFileSync(tasksFile, readFileSync(tasksFile, 'utf8').replace('- [ ] Pay rent', '- [x] Pay rent'));
    say(r, '/tasks');
    const list = await reply(r, (text) => text.includes('Renew passport') && text.includes('Tick one'));
    // The hand tick (no ✅ date) makes the next month's rent, as a completion through the tools would.
    expect(list).toMatch(/Pay rent 📅 \w+ 1 \w+ 🔁 every month on the 1st ⏰ \d{4}-\d\d-01 09:00/);
    expect(scheduler?.get(`task-${id}`)).toBeUndefined();
    const next = readFileSync(tasksFile, 'utf8').split('\n').find((entry) => entry.startsWith('- [ ] Pay rent')) ?? '';
    expect(next).toMatch(/📅 \d{4}-\d\d-01 ⏰ \d{4}-\d\d-01 09:00 🆔 [a-z0-9]{6}$/);
    expect(next).not.toContain(first === '' ? 'x' : `📅 ${first}`);

    // "plan my week": /plan runs a turn that sees goals and tasks and saves the plan as a note with tasks.
    say(r, '/plan');
    expect(await reply(r, (text) => text.startsWith('Your plan is saved.'))).toContain('Plan saved: notes/Plan week of');
    const planRequest = r.llm.requests.find((request) => lastUser(request).startsWith("Let's plan"));
    expect(lastUser(planRequest as RecordedRequest)).toContain('Renew passport');
    const plan = readFileSync(path.join(memory, 'notes', `Plan week of ${today}.md`), 'utf8');
    expect(plan).toContain('type: plan');
    expect(plan).toContain(`- [ ] Go to bed by 23:00 📅 ${addDays(today, 1)} 🆔`);
  });

  it('/task with a time sets a reminder in that chat; a reminder for a task done by hand is not sent and its job goes', async () => {
    const r = await start();
    say(r, '/task call the plumber tomorrow at 10am');
    const added = await reply(r, (text) => text.startsWith('Added to tasks.md'));
    expect(added).toContain('I will remind you here at');
    expect(r.llm.requests).toHaveLength(0);
    const tasksFile = path.join(r.app.config.memory_dir, 'tasks.md');
    const id = /🆔 ([a-z0-9]{6})/.exec(readFileSync(tasksFile, 'utf8'))?.[1] ?? '';
    writeFileSync(tasksFile, readFileSync(tasksFile, 'utf8').replace('- [ ]', '- [x]'));
    // Fires before any reconcile saw the tick: the file decides at fire time.
    const outcome = await r.app.scheduler.runNow(`task-${id}`);
    expect(outcome).toMatchObject({ success: true, value: { status: 'ok', output: 'not sent: the task is done' } });
    expect(r.app.scheduler.get(`task-${id}`)).toBeUndefined();
    expect(r.telegram.messagesTo(OWNER_TG).filter((message) => (message.text ?? '').startsWith('⏰'))).toEqual([]);
  });

  it('/help lists the new commands, and they answer on Discord too', async () => {
    const r = await start();
    say(r, '/help');
    const help = await reply(r, (text) => text.includes('Commands:'));
    for (const command of ['/save', '/task', '/tasks', '/plan', '/scrape', '/email', '/remind']) expect(help).toContain(`${command} — `);
    expect(r.telegram.commands.map((command) => command.command)).toEqual(expect.arrayContaining(['save', 'task', 'tasks', 'plan', 'scrape', 'email']));
    r.discord.sendUserMessage({ userId: OWNER_DC, content: '/task water the ficus every week', dm: true });
    const sent = await r.discord.waitFor(() => r.discord.messages.find((message) => String(message.content ?? '').startsWith('Added to tasks.md')), 8000);
    expect(String(sent.content)).toContain('water the ficus');
  });
});
