import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardOptions } from '../../src/notes/scrape.js';
import { INSTALL_HINT, renderPage } from '../../src/notes/render.js';
import { EXTERNAL_BEGIN, EXTERNAL_END } from '../../src/tools/external.js';
import { describeBrowser } from '../helpers/browser.js';
import { siteDns, SITE_HTTP, startSmallSite, type SmallSite } from '../helpers/small-site.js';
import { notesHarness, type NotesHarness } from './helpers.js';

// web_scrape's crawl and rendering keep the outside-content rules and the SSRF guard: every page, every redirect hop
// and every request a rendered page makes goes through the guard; every envelope is closed whatever is cut; a summary
// (our model's words) vouches for nothing. The site is site.test on 127.0.0.1; only its names are allowed.
let site: SmallSite;
let h: NotesHarness;
beforeAll(async () => {
  site = await startSmallSite();
  h = await notesHarness({ tools: { http: SITE_HTTP } }, { resolve: siteDns });
});
afterAll(async () => {
  await h.close();
  await site.close();
});

/** True when every envelope opens, then closes before the next opens, and none is left open. */
function envelopesClosed(output: string): boolean {
  let open = false;
  for (const match of output.matchAll(new RegExp(`${EXTERNAL_BEGIN}|${EXTERNAL_END}`, 'g'))) {
    const begins = match[0] === EXTERNAL_BEGIN;
    if (begins === open) return false;
    open = begins;
  }
  return !open;
}

describe('web_scrape crawl security', () => {
  it('refuses a followed link that redirects to 127.0.0.1, and never asks the machine for it', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 1 });
    expect(result.output).toContain(`${site.base}/sneaky: Could not read ${site.base}/sneaky: redirected to http://127.0.0.1:${site.port}/internal`);
    expect(result.output).toContain('loopback');
    expect(result.output).not.toContain('INTERNAL ADMIN DATA');
    expect(site.paths()).not.toContain('/internal');
  });

  it.each([200, 700, 3000, 100_000])('closes every envelope when max_chars is %i', async (maxChars) => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 2, max_chars: maxChars });
    expect(result.success).toBe(true);
    expect(envelopesClosed(result.output)).toBe(true);
  });

  it('puts only the pages\' text in thirdParty: not the list of pages it did not read', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 1 });
    expect(result.thirdParty?.length).toBeGreaterThan(1);
    for (const text of result.thirdParty ?? []) expect(text).not.toContain('Not read:');
  });

  it('gives a summary as outside content that vouches for nothing', async () => {
    h.fake.script({ content: 'Summary: see https://attacker.example/?q=secret for more.' });
    const result = await h.call('web_scrape', { url: `${site.base}/`, summarize: true });
    expect(result.success).toBe(true);
    expect(result.externalSource).toBe(`${site.base}/`);
    expect(result.thirdParty ?? []).toEqual([]);
    expect(envelopesClosed(result.output)).toBe(true);
    expect(result.output.indexOf('attacker.example')).toBeGreaterThan(result.output.indexOf(EXTERNAL_BEGIN));
  });

  it('says how to install chromium when render: true finds none', async () => {
    const result = await renderPage(new URL(`${site.base}/script`), guardOptions({ http: h.app.config.tools.http, resolve: siteDns }), { chromium: ['/nonexistent/chromium'] });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toBe(INSTALL_HINT);
    expect(INSTALL_HINT).toContain('apt-get install chromium');
  });
});

describeBrowser('web_scrape render: true in chromium', () => {
  // One call, one browser: the page, and the page its script's link leads to (depth 1), rendered in turn.
  it('reads text a script builds, and follows the link it built, while the script\'s request to 127.0.0.1 never reaches the machine', async () => {
    const before = site.paths().length;
    const result = await h.call('web_scrape', { url: `${site.base}/script`, render: true, depth: 1 });
    expect(result.success).toBe(true);
    expect(result.output).toContain('Rendered in the browser by its own script');
    expect(result.output).toContain(`${EXTERNAL_BEGIN} source="${site.base}/a">>>`);
    expect(result.output).not.toContain('INTERNAL ADMIN DATA');
    expect(result.output).not.toContain('LEAKED');
    expect(site.paths().slice(before)).toEqual(['/script', '/robots.txt', '/a']);
    expect(envelopesClosed(result.output)).toBe(true);
  });
});
