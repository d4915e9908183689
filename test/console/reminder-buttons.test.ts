import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_CHAT } from '../../src/console/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { openEvents, startConsoleApp, type ConsoleApp } from '../helpers/console.js';

const ORIGIN = { channel: 'console', chatId: CONSOLE_CHAT, userId: CONSOLE_CHAT };

describe('a reminder delivered to the console', () => {
  let fake: FakeOpenAI;
  let app: ConsoleApp;

  beforeEach(async () => {
    fake = await startOpenAiServer();
    app = await startConsoleApp(fake);
  });

  afterEach(async () => {
    await app.app.close(0);
    await fake.close();
  });

  /** Makes a reminder in the console's chat, fires it, and returns its buttons as the page got them. */
  async function delivered(client: Awaited<ReturnType<ConsoleApp['login']>>, title: string): Promise<Array<{ label: string; data: string }>> {
    const stream = await openEvents(client, 'chat');
    const made = await app.app.tools.execute({ name: 'reminder_create', arguments: { title, when: 'in 1 hour' }, conversationId: 'c-test', turnId: 't-test', origin: ORIGIN });
    const id = /Reminder (r-[0-9a-f]{6})/.exec(made.result.output)?.[1] ?? '';
    await app.app.scheduler.runNow(id);
    const event = await stream.until((candidate) => candidate.data['kind'] === 'delivery');
    stream.close();
    return event.data['buttons'] as Array<{ label: string; data: string }>;
  }

  it('carries Snooze and Done buttons; Snooze re-arms it once for the console', async () => {
    const client = await app.login();
    const buttons = await delivered(client, 'Stretch your legs');
    expect(buttons.map((button) => button.label)).toEqual(['💤 10 min', '💤 1 h', '💤 Tomorrow', '✅ Done']);
    const press = (label: string) => client.post('/console/chat/button', { data: buttons.find((button) => button.label === label)?.data ?? '' }, { Accept: 'application/json' });
    expect(await (await press('💤 Tomorrow')).json()).toMatchObject({ outcome: expect.stringMatching(/^💤 Snoozed until \d{4}-\d{2}-\d{2} 09:00\.$/) });
    expect(await (await press('✅ Done')).json()).toMatchObject({ notice: expect.stringMatching(/^Already snoozed until /) });
    const snoozed = app.app.scheduler.list().filter((job) => job.spec === 'snoozed: tomorrow');
    expect(snoozed).toEqual([expect.objectContaining({ prompt: 'Stretch your legs', origin: expect.objectContaining({ channel: 'console', chatId: CONSOLE_CHAT }) })]);
  });

  it('Done marks it done', async () => {
    const client = await app.login();
    const buttons = await delivered(client, 'Call Anna');
    const response = await client.post('/console/chat/button', { data: buttons.find((button) => button.label === '✅ Done')?.data ?? '' }, { Accept: 'application/json' });
    expect(await response.json()).toEqual({ notice: 'Done', outcome: '✅ Done.' });
  });

  it('refuses a button press without the page\'s CSRF token', async () => {
    const client = await app.login();
    const buttons = await delivered(client, 'Call Anna');
    const response = await client.post('/console/chat/button', { data: buttons[0]?.data ?? '', _csrf: 'wrong' }, { Accept: 'application/json' });
    expect(response.status).toBe(403);
    expect(app.app.scheduler.list().filter((job) => job.spec.startsWith('snoozed'))).toEqual([]);
  });
});
