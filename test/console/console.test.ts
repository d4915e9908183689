import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiServer, TINY_PNG, type FakeOpenAI } from '../fakes/openai-server.js';
import { openEvents, startConsoleApp, type ConsoleApp } from '../helpers/console.js';

describe('console', () => {
  let fake: FakeOpenAI;
  let apps: ConsoleApp[];

  beforeEach(async () => {
    fake = await startOpenAiServer();
    apps = [];
  });

  afterEach(async () => {
    for (const app of apps) await app.app.close(0).catch(() => undefined);
    await fake.close();
  });

  async function start(overrides: Record<string, unknown> = {}): Promise<ConsoleApp> {
    const app = await startConsoleApp(fake, overrides);
    apps.push(app);
    return app;
  }

  it('is mounted under /console and / leads there, while /healthz, /readyz and /status answer as before', async () => {
    const { base } = await start();
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/console/');
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/status`)).status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });

  it('is not mounted with http.console: false', async () => {
    const { app, base, logs } = await start({ http: { console: false } });
    expect(app.parts.some((part) => part.name === 'console')).toBe(false);
    expect((await fetch(`${base}/console/login`)).status).toBe(404);
    expect(logs.join('')).toContain('http.console: false');
  });

  it('renders every section for a logged-in person', async () => {
    const app = await start();
    const client = await app.login();
    for (const page of ['/console/chat', '/console/approvals', '/console/activity', '/console/turns', '/console/usage', '/console/jobs', '/console/calendar', '/console/skills', '/console/pairing', '/console/memory', '/console/health']) {
      const response = await client.get(page);
      expect(response.status, page).toBe(200);
      expect(response.headers.get('content-type'), page).toContain('text/html');
      expect(await response.text(), page).toContain('</html>');
    }
  });

  it('streams a chat reply as it is generated, then sends the rendered answer', async () => {
    const app = await start();
    const client = await app.login();
    const stream = await openEvents(client, 'chat');
    fake.script({ content: 'Hello **there**, friend', chunks: ['Hello ', '**there**', ', friend'], chunkDelayMs: 20 });
    const sent = await client.post('/console/chat/send', { text: 'hi', messageId: 'message-000001' }, { Accept: 'application/json' });
    expect(sent.status).toBe(202);
    const reply = await stream.until((event) => event.data.kind === 'reply');
    const deltas = stream.events.filter((event) => event.data.kind === 'delta').map((event) => event.data.text);
    expect(deltas).toEqual(['Hello ', '**there**', ', friend']);
    expect(reply.data.html).toContain('<strong>there</strong>');
    expect(fake.requests.at(-1)?.body.stream).toBe(true);
    stream.close();
    const page = await client.text('/console/chat');
    expect(page).toContain('hi');
    expect(page).toContain('<strong>there</strong>');
  });

  it('shows a tool call as it starts and ends, with masked arguments, and keeps it in the transcript', async () => {
    const app = await start();
    writeFileSync(path.join(app.dir, 'memory', 'profile.md'), '# Profile\nName: Ada\n');
    const client = await app.login();
    const stream = await openEvents(client, 'chat');
    fake.script({ toolCalls: [{ name: 'memory_read', arguments: { path: 'profile.md' } }] }, { content: 'You are Ada.' });
    await client.post('/console/chat/send', { text: 'who am I?', messageId: 'message-000002' }, { Accept: 'application/json' });
    const started = await stream.until((event) => event.data.kind === 'tool_start');
    expect(started.data).toMatchObject({ tool: 'memory_read', state: 'running' });
    expect(String(started.data.arguments)).toContain('profile.md');
    const ended = await stream.until((event) => event.data.kind === 'tool_end');
    expect(ended.data).toMatchObject({ tool: 'memory_read', state: 'ok' });
    expect(typeof ended.data.durationMs).toBe('number');
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    const page = await client.text('/console/chat');
    expect(page).toContain('memory_read');
    expect(page).toContain('You are Ada.');
  });

  it('a form\'s result is shown on the page it leads to, even when the live refresh of the page it was sent from lands first', async () => {
    const app = await start({ scheduler: { jobs: [{ id: 'morning-brief', when: 'every weekday at 8', prompt: 'Summarise my day.' }] } });
    const client = await app.login();
    const stream = await openEvents(client, 'jobs');
    const sent = await client.post('/console/jobs/morning-brief/pause', {});
    expect(sent.status).toBe(303);
    await stream.until((event) => event.topic === 'jobs' && event.data.id === 'morning-brief');
    // The jobs list's script re-reads its page on that event, before the browser has followed the redirect.
    const refreshed = await (await client.get('/console/jobs', { headers: { 'X-Requested-With': 'console' } })).text();
    expect(refreshed).not.toContain('class="flash');
    const landed = await client.text(String(sent.headers.get('location')));
    expect(landed).toContain('Paused morning-brief');
    expect(landed).toContain('(paused)');
    // Shown once: the next load of a page has no flash line.
    expect(await client.text('/console/jobs')).not.toContain('class="flash');
    stream.close();
  });

  it('answers the chat commands (/help, /reset) without the model, and /reset starts a new conversation', async () => {
    const app = await start();
    const client = await app.login();
    const stream = await openEvents(client, 'chat');
    const before = app.app.conversations.resolve('console', 'owner');
    await client.post('/console/chat/send', { text: '/help', messageId: 'message-000003' }, { Accept: 'application/json' });
    const help = await stream.until((event) => event.data.kind === 'command');
    expect(String(help.data.html)).toContain('/reset');
    await client.post('/console/chat/send', { text: '/reset', messageId: 'message-000004' }, { Accept: 'application/json' });
    await stream.until((event) => event.data.kind === 'command' && event.data.command === '/reset');
    expect(app.app.conversations.resolve('console', 'owner')).not.toBe(before);
    expect(fake.requests).toHaveLength(0);
    stream.close();
  });

  it('stores an uploaded file in the conversation\'s workspace and tells the model where it is', async () => {
    const app = await start();
    const client = await app.login();
    const stream = await openEvents(client, 'chat');
    fake.script({ content: 'Got it.' });
    const form = new FormData();
    form.set('text', 'here is a file');
    form.set('messageId', 'message-000005');
    form.append('files', new Blob(['col1,col2\n1,2\n'], { type: 'text/csv' }), 'data.csv');
    const sent = await client.post('/console/chat/send', form, { Accept: 'application/json' });
    expect(sent.status).toBe(202);
    await stream.until((event) => event.data.kind === 'reply');
    stream.close();
    const question = fake.requests.at(-1)?.body.messages.at(-1);
    expect(String(question?.content)).toContain('data.csv');
    expect(String(question?.content)).toMatch(/: uploads\/[a-z0-9]+-data\.csv$/);
  });

  it('keeps a reply\'s files for download, always as an attachment', async () => {
    const app = await start();
    const client = await app.login();
    const item = (await import('../../src/console/items.js')).ConsoleItems;
    const stored = new item(app.app.db).add({ conversationId: app.app.conversations.resolve('console', 'owner'), kind: 'artifact', name: 'report <1>.html', mimeType: 'text/html', content: Buffer.from('<script>alert(1)</script>') });
    const response = await client.get(`/console/artifacts/${stored.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="report__1_.html"/);
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(await response.text()).toBe('<script>alert(1)</script>');
    expect(await client.text('/console/chat')).toContain(`/console/artifacts/${stored.id}`);
  });

  it('shows a reply\'s raster image inline in the chat, and never an HTML or SVG file', async () => {
    const app = await start();
    const client = await app.login();
    const items = new (await import('../../src/console/items.js')).ConsoleItems(app.app.db);
    const conversationId = app.app.conversations.resolve('console', 'owner');
    const png = items.add({ conversationId, kind: 'artifact', name: 'image-1.png', mimeType: 'image/png', content: TINY_PNG });
    const svg = items.add({ conversationId, kind: 'artifact', name: 'x.svg', mimeType: 'image/svg+xml', content: Buffer.from('<svg onload="alert(1)"/>') });
    const shown = await client.get(`/console/artifacts/${png.id}/view`);
    expect(shown.headers.get('content-type')).toBe('image/png');
    expect(shown.headers.get('content-disposition')).toBe('inline');
    expect(Buffer.compare(Buffer.from(await shown.arrayBuffer()), TINY_PNG)).toBe(0);
    expect((await client.get(`/console/artifacts/${svg.id}/view`)).status).toBe(404);
    const page = await client.text('/console/chat');
    expect(page).toContain(`<img class="artifact-image" src="/console/artifacts/${png.id}/view"`);
    expect(page).not.toContain(`/console/artifacts/${svg.id}/view`);
  });
  it('a memory save never overwrites a hand edit made while the page was open: it shows both and keeps the file', async () => {
    const app = await start();
    const file = path.join(app.dir, 'memory', 'profile.md');
    writeFileSync(file, '# Profile\nName: Ada\n');
    const client = await app.login();
    const page = await client.text('/console/memory/file?path=profile.md');
    const expected = /name="expected" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(expected).not.toBe('');
    writeFileSync(file, '# Profile\nName: Ada\nHand edit: keep me\n');
    const saved = await client.post('/console/memory/file', { path: 'profile.md', expected, content: '# Profile\nName: Ada Lovelace\n', action: 'save' });
    expect(saved.status).toBe(200);
    const body = await saved.text();
    expect(body).toContain('The file changed while you were editing');
    expect(body).toContain('Hand edit: keep me');
    expect(readFileSync(file, 'utf8')).toBe('# Profile\nName: Ada\nHand edit: keep me\n');
    // Saved again from the conflict page (it now carries the current version): the person's text wins, on purpose.
    const again = /name="expected" value="([^"]+)"/.exec(body)?.[1] ?? '';
    expect((await client.post('/console/memory/file', { path: 'profile.md', expected: again, content: '# Profile\nName: Ada Lovelace\n', action: 'save' })).status).toBe(303);
    expect(readFileSync(file, 'utf8')).toBe('# Profile\nName: Ada Lovelace\n');
  });

  it('marks a memory file that holds outside content, and the person can trust it from its page', async () => {
    const app = await start();
    mkdirSync(path.join(app.dir, 'memory', 'notes'), { recursive: true });
    writeFileSync(path.join(app.dir, 'memory', 'notes', 'page.md'), 'Saved from a page.\n');
    const { ProvenanceLabels } = await import('../../src/gate/labels.js');
    const labels = new ProvenanceLabels(app.app.db);
    labels.label('memory', 'notes/page.md', ['http:https://news.example/today']);
    const client = await app.login();
    expect(await client.text('/console/memory')).toMatch(/notes\/page\.md<\/a> <span class="chip warn"[^>]*>outside content<\/span>/);
    const page = await client.text('/console/memory/file?path=notes/page.md');
    expect(page).toContain('Written while the assistant was reading http:https://news.example/today');
    const trusted = await client.post('/console/memory/trust', { path: 'notes/page.md' });
    expect(trusted.status).toBe(303);
    expect(labels.get('memory', 'notes/page.md')).toBeUndefined();
    expect(await client.text('/console/memory/file?path=notes/page.md')).not.toContain('Written while the assistant was reading');
  });
});
