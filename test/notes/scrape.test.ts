import { encode } from 'iconv-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebServer, type Route, type WebServer } from '../helpers/reach.js';
import { notesHarness, type NotesHarness } from './helpers.js';

// Real HTML pages written here, served from 127.0.0.1 (so these tests allow private addresses; the guard is
// tested in notes-security.test.ts), read through the real part: guarded fetch, Readability, turndown.
const servers: WebServer[] = [];
let h: NotesHarness | undefined;
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await h?.close();
  h = undefined;
});

async function site(pages: Record<string, { type?: string; body: string | Buffer }>): Promise<WebServer> {
  const route: Route = (req, res) => {
    const page = pages[req.url ?? '/'];
    if (!page) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    if (page.type !== '') res.setHeader('content-type', page.type ?? 'text/html; charset=utf-8');
    res.end(page.body);
  };
  const server = await startWebServer(route);
  servers.push(server);
  return server;
}

async function harness(): Promise<NotesHarness> {
  h = await notesHarness({ tools: { http: { allow_private: true } } });
  return h;
}

const PARAGRAPH = (n: number) => `<p>Paragraph ${n} of the article explains, in some detail and at a leisurely pace, why gardeners in cold climates start their tomato seedlings indoors, and how they harden them off before planting out.</p>`;

function articlePage(title: string, paragraphs: number, extra = ''): string {
  return `<!doctype html><html lang="en"><head><title>${title} | Garden Weekly</title>
<meta name="author" content="Ann Gardener"><meta property="article:published_time" content="2026-03-14T08:00:00Z"><meta property="og:site_name" content="Garden Weekly">
<script>window.dataLayer=[];function track(){document.write('TRACKER-SCRIPT')}</script><style>.x{color:red}</style></head>
<body>
<header class="site-header"><nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/shop">Shop</a></li></ul></nav></header>
<div id="cookie-banner" class="consent"><p>We use cookies to improve your experience. Accept all cookies?</p><button>Accept</button></div>
<main><article><h1>${title}</h1><p class="byline">By Ann Gardener</p>
${Array.from({ length: paragraphs }, (_, index) => PARAGRAPH(index + 1)).join('\n')}
<p>See <a href="/guides/hardening">our hardening guide</a> and the table:</p>
<table><tr><th>Week</th><th>Hours outside</th></tr><tr><td>1</td><td>2</td></tr><tr><td>2</td><td>6</td></tr></table>
${extra}
</article>
<section id="comments" class="comments"><h3>Comments</h3><div class="comment">First! Buy cheap pills at spam.example</div></section>
</main>
<aside class="sidebar"><h3>Related</h3><a href="/x">Ten best trowels</a></aside>
<footer><p>© Garden Weekly — Privacy — Imprint</p></footer>
<script>track()</script></body></html>`;
}

describe('web_scrape on real pages', () => {
  it('extracts a long article as Markdown with its title, author and date, without navigation, banners, comments or scripts', async () => {
    const server = await site({ '/tomatoes': { body: articlePage('Starting tomatoes indoors', 200) } });
    const { call } = await harness();
    const result = await call('web_scrape', { url: `${server.origin}/tomatoes` });
    expect(result.success).toBe(true);
    expect(result.externalSource).toBe(`${server.origin}/tomatoes`);
    expect(result.output).toContain(`<<<EXTERNAL_CONTENT source="${server.origin}/tomatoes">>>`);
    expect(result.output).toContain('Title: Starting tomatoes indoors');
    expect(result.output).toContain('By: Ann Gardener');
    expect(result.output).toContain('Published: 2026-03-14T08:00:00Z');
    expect(result.output).toContain('Paragraph 1 of the article');
    for (const noise of ['TRACKER-SCRIPT', 'Accept all cookies', 'Ten best trowels', 'spam.example', 'Imprint', 'color:red', '[Shop]']) {
      expect(result.output, noise).not.toContain(noise);
    }
    // The model gets a bounded share; the rest is marked as left out.
    expect(result.output).toContain('[the rest of the page is left out]');
    expect(result.output.trimEnd().endsWith('<<<END_EXTERNAL_CONTENT>>>')).toBe(true);
  });

  it('saves the whole article as a note with its source, author and date (save: true)', async () => {
    const server = await site({ '/tomatoes': { body: articlePage('Starting tomatoes indoors', 200) } });
    const t = await harness();
    const result = await t.call('web_scrape', { url: `${server.origin}/tomatoes`, save: true, tags: ['garden'] });
    expect(result.output).toContain('Saved as notes/Starting tomatoes indoors.md');
    const note = t.read('notes/Starting tomatoes indoors.md');
    expect(note).toContain(`source: ${server.origin}/tomatoes`);
    expect(note).toContain('author: Ann Gardener');
    expect(note).toContain('published: 2026-03-14T08:00:00Z');
    expect(note).toMatch(/tags:\n  - clippings\n  - garden/);
    expect(note).toContain('Paragraph 200 of the article');
    expect(note).toContain(`[our hardening guide](${server.origin}/guides/hardening)`);
    expect(note).toMatch(/\| Week \| Hours outside \|\n\| --- \| --- \|\n\| 1 +\| 2 +\|/);
    expect(note).not.toContain('Accept all cookies');
  });

  it('decodes windows-1252 named in the Content-Type header', async () => {
    const html = articlePage('Crème brûlée', 8, '<p>Prix : 4 € — « très bon » naïve café</p>');
    const server = await site({ '/cp1252': { type: 'text/html; charset=windows-1252', body: encode(html, 'windows-1252') } });
    const result = await (await harness()).call('web_scrape', { url: `${server.origin}/cp1252` });
    expect(result.output).toContain('Title: Crème brûlée');
    expect(result.output).toContain('Prix : 4 € — « très bon » naïve café');
  });

  it('decodes Shift_JIS declared only in <meta>, and EUC-JP in an http-equiv meta', async () => {
    const japanese = '日本の庭では、春になるとトマトの苗を室内で育てます。'.repeat(12);
    const page = (meta: string) => `<html><head>${meta}<title>トマトの育て方</title></head><body><article><h1>トマトの育て方</h1>${`<p>${japanese}</p>`.repeat(4)}</article></body></html>`;
    const server = await site({
      '/sjis': { type: 'text/html', body: encode(page('<meta charset="Shift_JIS">'), 'Shift_JIS') },
      '/eucjp': { type: '', body: encode(page('<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">'), 'EUC-JP') },
    });
    const t = await harness();
    const sjis = await t.call('web_scrape', { url: `${server.origin}/sjis` });
    expect(sjis.output).toContain('Title: トマトの育て方');
    expect(sjis.output).toContain('春になるとトマトの苗を室内で育てます');
    const euc = await t.call('web_scrape', { url: `${server.origin}/eucjp` });
    expect(euc.output).toContain('春になるとトマトの苗を室内で育てます');
  });

  it('keeps the text of a page that has no article, and says so', async () => {
    const server = await site({ '/short': { body: '<html><head><title>Opening hours</title></head><body><p>Mon–Fri 9–17</p></body></html>' } });
    const result = await (await harness()).call('web_scrape', { url: `${server.origin}/short` });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Mon–Fri 9–17');
  });

  it('answers with what to do for a 404, a non-page and a bad URL', async () => {
    const server = await site({ '/file.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.4') } });
    const t = await harness();
    expect((await t.call('web_scrape', { url: `${server.origin}/missing` })).output).toContain('answered 404 Not Found; check the URL');
    expect((await t.call('web_scrape', { url: `${server.origin}/file.pdf` })).output).toContain('is not a web page (application/pdf)');
    expect((await t.call('web_scrape', { url: 'ftp://example.com/x' })).output).toContain('Only http and https');
  });

  it('/save URL keeps the page as a note; /scrape URL puts it into the conversation for the next question', async () => {
    const server = await site({ '/tomatoes': { body: articlePage('Starting tomatoes indoors', 10) } });
    const t = await harness();
    expect(await t.command('save', `${server.origin}/tomatoes`)).toContain('Saved "Starting tomatoes indoors" as notes/Starting tomatoes indoors.md');
    const reply = await t.command('scrape', `${server.origin}/tomatoes`);
    expect(reply).toMatch(/^Starting tomatoes indoors\nAnn Gardener · 2026-03-14T08:00:00Z\n/);
    expect(reply).toContain('Paragraph 1 of the article');
    t.fake.script({ content: 'They are hardened off first.' });
    await t.app.turns.start({ text: 'what does the page say about hardening?', origin: { channel: 'telegram', chatId: '77', userId: '77' }, source: 'chat' });
    const messages = t.fake.requests.at(-1)?.body.messages ?? [];
    const page = messages.find((message) => message.role === 'tool');
    expect(String(page?.content)).toContain(`<<<EXTERNAL_CONTENT source="${server.origin}/tomatoes">>>`);
    expect(String(page?.content)).toContain('Paragraph 1 of the article');
  });
});
