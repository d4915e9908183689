// The console in a real browser (Debian's chromium through playwright-core) against the real daemon (`node
// dist/main.js start`; run `npm run build` first), the fake LLM and the fake Telegram: log in with the link
// `familiar console` prints, chat with a streamed reply, approve a question raised from Telegram, pause a job,
// edit and revert a memory file, see the usage chart. Every page is also opened dark and on a phone (a script error
// there fails the last test); with UPDATE_SCREENSHOTS=1 each view is saved into docs/console/ as well (the
// screenshots were most of this file's time, and nobody looks at them in an ordinary run).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startTelegramServer, type FakeTelegram } from '../fakes/telegram-server.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { describeBrowser, launchChromium, VIEWS } from '../helpers/browser.js';
import { alive, startDaemon, type Daemon } from '../helpers/daemon.js';
import { freePort, runFamiliar } from '../helpers/rig.js';

const OWNER = 1001;
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/console/', import.meta.url)) : undefined;

describeBrowser('the console in a browser, against the running daemon', () => {
  let llm: FakeOpenAI;
  let telegram: FakeTelegram;
  let daemon: Daemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  let base: string;
  // Script errors of every page the tests open (the memory editor once threw on every save and tab click).
  const scriptErrors: string[] = [];
  const watchErrors = (watched: Page): void => {
    watched.on('pageerror', (error) => scriptErrors.push(`${watched.url()}: ${error.message}`));
  };

  beforeAll(async () => {
    llm = await startOpenAiServer();
    telegram = await startTelegramServer();
    dir = tempDir('familiar-console-e2e-');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    writeTestConfig(dir, llm, {
      log: { level: 'info', format: 'json' },
      agent: { name: 'Familiar' },
      channels: { telegram: { token: telegram.token, api_root: telegram.apiRoot, allowed_users: [OWNER] } },
      http: { listen: `127.0.0.1:${port}` },
      llm: { daily_token_budget: 60_000, prices: { 'gpt-test': { prompt_per_mtok: 0.15, completion_per_mtok: 0.6 }, 'gpt-big': { prompt_per_mtok: 2.5, completion_per_mtok: 10 } } },
      scheduler: { jobs: [{ id: 'morning-brief', when: 'every weekday at 8', prompt: 'Summarise my day: calendar, tasks, the weather.' }] },
    });
    writeFileSync(path.join(dir, 'memory', 'profile.md'), '# Profile\n\n- Name: Ada\n- Likes: tea, chess\n');
    seedUsage(dir);
    daemon = startDaemon(dir, { TEST_LLM_KEY: llm.apiKey });
    await Promise.race([daemon.ready, daemon.exited.then((code) => { throw new Error(`daemon exited ${code}: ${daemon.stderr()}`); })]);
    browser = await launchChromium();
    context = await browser.newContext(VIEWS.light);
    page = await context.newPage();
    watchErrors(page);
    page.on('dialog', (dialog) => void dialog.accept());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (daemon && alive(daemon)) await daemon.term();
    await llm?.close();
    await telegram?.close();
  });

  // One page per other view, opened on first use with the logged-in session and then only navigated: a new
  // context or page is a new renderer process, which cost more than the visit itself.
  const otherViews = new Map<'dark' | 'phone', Page>();
  async function viewPage(view: 'dark' | 'phone'): Promise<Page> {
    let made = otherViews.get(view);
    if (!made) {
      made = await (await browser.newContext({ ...VIEWS[view], storageState: await context.storageState() })).newPage();
      watchErrors(made);
      otherViews.set(view, made);
    }
    return made;
  }

  /** The page now, and the same URL in dark and on a phone (same session), as docs/console/NAME-{light,dark,phone}.png. */
  async function shoot(name: string): Promise<void> {
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, `${name}-light.png`) });
    }
    await Promise.all((['dark', 'phone'] as const).map(async (view) => {
      const otherPage = await viewPage(view);
      await otherPage.goto(page.url());
      await otherPage.waitForLoadState('networkidle').catch(() => undefined);
      if (SHOTS) await otherPage.screenshot({ path: path.join(SHOTS, `${name}-${view}.png`) });
    }));
  }

  it('logs in with the link familiar console prints; the token leaves the address bar and works only once', async () => {
    const { code, stdout, stderr } = await runFamiliar(dir, ['console']);
    const printed = stdout + stderr;
    expect(code, printed).toBe(0);
    const link = /(http:\/\/\S+\/console\/login#token=[A-Za-z0-9_-]+)/.exec(printed)?.[1];
    expect(link, printed).toBeDefined();
    await page.goto(link ?? '');
    await page.waitForURL(`${base}/console/chat`);
    expect(page.url()).not.toContain('token');
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'familiar_console')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    // The same link a second time, in another browser profile: refused.
    const stranger = await browser.newContext();
    const again = await stranger.newPage();
    await again.goto(link ?? '');
    await expect.poll(async () => again.locator('#login-status').textContent()).toContain('not valid');
    expect(again.url()).toContain('/console/login');
    await stranger.close();
  });

  it('chats with a streamed reply', async () => {
    const pieces = ['Good ', 'morning, ', 'Ada! ', 'Here is ', 'your **plan** ', 'for today.'];
    llm.script({ content: pieces.join(''), chunks: pieces, chunkDelayMs: 250 });
    await page.locator('#message').fill('Good morning!');
    await page.locator('#message').press('Enter');
    // Part of the answer is on the page before the rest is generated.
    await page.waitForFunction(() => {
      // Runs in the page, where `document` exists (the test's own types have no DOM).
      const { document } = globalThis as unknown as { document: { querySelector(selector: string): { textContent: string | null } | null } };
      const text = document.querySelector('li.streaming .bubble')?.textContent ?? '';
      return text.includes('morning') && !text.includes('for today');
    });
    await page.locator('li.message.assistant .bubble strong', { hasText: 'plan' }).waitFor();
    await expect.poll(() => page.locator('li.streaming').count()).toBe(0);
    expect(llm.requests.at(-1)?.body.stream).toBe(true);
    await shoot('chat');
  });

  it('approves a question raised from Telegram; the Telegram message loses its buttons and says so', async () => {
    llm.script({ toolCalls: [{ name: 'manage_skill', arguments: { id: 'old-notes', action: 'delete' } }] }, { content: 'Done: the skill is gone.' });
    telegram.sendUserMessage({ chatId: OWNER, userId: OWNER, text: 'delete the old-notes skill', firstName: 'Ada' });
    const question = await telegram.waitFor(() => telegram.messagesTo(OWNER).find((message) => (message.text ?? '').startsWith('Approve this action?')), 15_000);
    expect(JSON.stringify(question.reply_markup)).toContain('approval:');
    await page.goto(`${base}/console/approvals`);
    const card = page.locator('article.approval');
    await card.waitFor();
    expect(await card.textContent()).toContain('manage_skill');
    expect(await card.textContent()).toContain('telegram chat 1001');
    await shoot('approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.locator('.decided li', { hasText: 'Approved by the owner in the console' }).waitFor();
    await telegram.waitFor(() => question.edits.length > 0 && !question.reply_markup, 10_000).catch(() => undefined);
    const edited = telegram.messagesTo(OWNER).find((message) => message.message_id === question.message_id);
    expect(edited?.text).toContain('Approved by the owner in the console');
    expect(JSON.stringify(edited?.reply_markup ?? null)).not.toContain('approval:');
    await telegram.waitFor(() => telegram.messagesTo(OWNER).find((message) => message.text === 'Done: the skill is gone.'), 15_000);
  });

  it('pauses a job', async () => {
    await page.goto(`${base}/console/jobs`);
    const card = page.locator('li.job', { hasText: 'morning-brief' });
    expect(await card.textContent()).toContain('At 08:00, Monday through Friday');
    await shoot('jobs');
    await card.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.flash', { hasText: 'Paused morning-brief' }).waitFor();
    expect(await page.locator('h1').textContent()).toContain('(paused)');
    await shoot('job');
    const db = openDatabase(path.join(dir, 'data'));
    try {
      expect((db.prepare("SELECT enabled FROM jobs WHERE id = 'morning-brief'").get() as { enabled: number }).enabled).toBe(0);
    } finally {
      db.close();
    }
  });

  it('edits a memory file, then reverts the edit', async () => {
    const file = path.join(dir, 'memory', 'profile.md');
    await page.goto(`${base}/console/memory`);
    await shoot('memory');
    await page.getByRole('link', { name: 'profile.md' }).click();
    await page.locator('#content').fill('# Profile\n\n- Name: Ada\n- Likes: tea, chess, **long walks**\n');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#preview strong', { hasText: 'long walks' }).waitFor();
    await shoot('memory-preview');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.flash', { hasText: 'Saved profile.md' }).waitFor();
    expect(readFileSync(file, 'utf8')).toBe('# Profile\n\n- Name: Ada\n- Likes: tea, chess, **long walks**\n');
    await page.locator('.changes a').first().click();
    await page.locator('pre.diff .add', { hasText: 'long walks' }).waitFor();
    await shoot('memory-diff');
    await page.getByRole('button', { name: 'Revert this change' }).click();
    await page.locator('.flash', { hasText: 'Reverted profile.md' }).waitFor();
    expect(readFileSync(file, 'utf8')).toBe('# Profile\n\n- Name: Ada\n- Likes: tea, chess\n');
  });

  it('shows the usage chart against the daily budget', async () => {
    await page.goto(`${base}/console/usage`);
    expect(await page.locator('svg.chart rect.bar').count()).toBeGreaterThan(10);
    expect(await page.locator('svg.chart line.budget').count()).toBe(1);
    expect(await page.locator('.legend').textContent()).toContain('gpt-big');
    await shoot('usage');
  });

  it('shows what it did, the skills, the people, and health with the live log', async () => {
    await page.goto(`${base}/console/activity`);
    await page.locator('li.call', { hasText: 'manage_skill' }).first().waitFor();
    await page.locator('li.call summary').first().click();
    await shoot('activity');
    await page.goto(`${base}/console/turns`);
    await shoot('turns');
    await page.goto(`${base}/console/skills`);
    await shoot('skills');
    await page.goto(`${base}/console/pairing`);
    await shoot('people');
    await page.goto(`${base}/console/health`);
    await page.locator('#log li').first().waitFor();
    const before = await page.locator('#log li').count();
    // Something the daemon surely logs (a refused login is a warning): the line appears without a reload.
    await fetch(`${base}/console/login`, { method: 'POST', headers: { Origin: base, 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: 'x'.repeat(43) }) });
    await expect.poll(() => page.locator('#log li').count(), { timeout: 10_000 }).toBeGreaterThan(before);
    await shoot('health');
  });

  it('installs as an app: a valid manifest with PNG icons, and a service worker for /console/ that keeps only the shell', async () => {
    await page.goto(`${base}/console/health`);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    const manifest = await (await page.request.get(`${base}${href ?? ''}`)).json() as { display: string; start_url: string; scope: string; icons: Array<{ src: string; sizes: string; type: string }> };
    expect(manifest).toMatchObject({ display: 'standalone', start_url: '/console/chat', scope: '/console/' });
    for (const size of [192, 512]) {
      const icon = manifest.icons.find((entry) => entry.sizes === `${size}x${size}`);
      const png = await (await page.request.get(`${base}${icon?.src ?? ''}`)).body();
      expect(png.subarray(1, 4).toString(), `icon ${size}`).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)], `icon ${size}`).toEqual([size, size]);
    }
    // Strings, evaluated in the page: the tests are compiled without the DOM's types.
    const scope = await page.evaluate('navigator.serviceWorker.ready.then((registration) => registration.scope)');
    expect(scope).toBe(`${base}/console/`);
    // The switch comes on once the worker is ready (127.0.0.1 is a secure context).
    await page.locator('#push-toggle:not([disabled])').waitFor();
    const cached = await page.evaluate<string[]>(`(async () => {
      const paths = [];
      for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname);
      return paths;
    })()`);
    expect(cached.length).toBe(5);
    expect(cached.every((entry) => entry.startsWith('/console/assets/'))).toBe(true);
  });

  it('never ran a script the page did not load from the console itself (no CSP violation)', async () => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
    });
    for (const section of ['chat', 'approvals', 'activity', 'usage', 'jobs', 'skills', 'pairing', 'memory', 'health']) {
      await page.goto(`${base}/console/${section}`);
      await page.waitForLoadState('networkidle').catch(() => undefined);
    }
    expect(violations).toEqual([]);
  });

  it('ran no page into a script error, the memory editor\'s tabs and save included', () => {
    expect(scriptErrors).toEqual([]);
  });
});

/** Seeds two weeks of turns on two models, so the usage chart has something to draw. */
function seedUsage(dir: string): void {
  const db = openDatabase(path.join(dir, 'data'));
  try {
    const insert = db.prepare("INSERT INTO turns (id, conversation_id, source, started_at, ended_at, status, model, llm_calls, prompt_tokens, completion_tokens) VALUES (?, ?, 'chat', ?, ?, 'ok', ?, 1, ?, ?)");
    const now = Date.now();
    for (let day = 1; day <= 13; day += 1) {
      const at = now - day * 86_400_000;
      const load = 0.4 + ((day * 37) % 10) / 10;
      insert.run(`seed-a-${day}`, 'telegram-1001-seed', at, at + 4000, 'gpt-test', Math.round(30_000 * load), Math.round(4_000 * load));
      if (day % 3 === 0) insert.run(`seed-b-${day}`, 'telegram-1001-seed', at + 60_000, at + 70_000, 'gpt-big', Math.round(14_000 * load), Math.round(3_000 * load));
    }
  } finally {
    db.close();
  }
}
