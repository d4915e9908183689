import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_BEGIN } from '../../src/tools/external.js';
import { shares } from '../../src/notes/web-tools.js';
import { siteOf } from '../../src/notes/crawl.js';
import { usageToday } from '../../src/usage/usage.js';
import { siteDns, SITE_HTTP, startSmallSite, type SmallSite } from '../helpers/small-site.js';
import { notesHarness, type NotesHarness } from './helpers.js';

// web_scrape's depth, filters, size limit and summary on a small real site (served on 127.0.0.1 as site.test),
// through the real part: guarded fetch, robots-parser, Readability, and the fake LLM for summaries.
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

/** The addresses of the pages in a result, from their envelopes. */
function sources(output: string): string[] {
  return [...output.matchAll(/<<<EXTERNAL_CONTENT source="([^"]+)">>>/g)].map((match) => match[1] ?? '');
}

describe('web_scrape depth', () => {
  it('reads only the page at depth 0, without asking for robots.txt', async () => {
    const before = site.paths().length;
    const result = await h.call('web_scrape', { url: `${site.base}/` });
    expect(sources(result.output)).toEqual([`${site.base}/`]);
    expect(site.paths().slice(before)).toEqual(['/']);
  });

  it('follows the same site\'s links at depth 1, subdomains included, and not other sites or what robots.txt disallows', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 1 });
    expect(result.success).toBe(true);
    const read = sources(result.output);
    expect(read.slice(0, 4)).toEqual([`${site.base}/`, `${site.base}/a`, `${site.base}/b`, `http://docs.site.test:${site.port}/guide`]);
    expect(read).not.toContain(`${site.base}/private/secret`);
    expect(result.output).toContain(`${site.base}/private/secret: ${site.base}/robots.txt disallows it`);
    expect(result.output).toContain('1 link to other sites not followed');
    expect(result.output).not.toContain('a secret that robots.txt keeps out');
    // /moved redirects to /b, already read: it is not read twice.
    expect(read.filter((url) => url === `${site.base}/b`)).toHaveLength(1);
  });

  it('fetches robots.txt once per origin in a call', async () => {
    const before = site.seen.length;
    await h.call('web_scrape', { url: `${site.base}/`, depth: 2 });
    const robots = site.seen.slice(before).filter((request) => request.url === '/robots.txt').map((request) => request.headers.host);
    expect(robots.sort()).toEqual([`docs.site.test:${site.port}`, `site.test:${site.port}`]);
  });

  it('goes two links deep at depth 2', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 2 });
    expect(sources(result.output)).toContain(`${site.base}/a/deeper`);
  });

  it('stops at max_pages and says how many links were left', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 2, max_pages: 2 });
    expect(sources(result.output).filter((source) => !source.startsWith('pages linked'))).toEqual([`${site.base}/`, `${site.base}/a`]);
    expect(result.output).toMatch(/\d+ more links? not read \(max_pages reached\)/);
  });

  it('refuses a depth above the hard limit with an error the model can fix', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 9 });
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/depth/);
  });

  it('takes www.example.co.uk and shop.example.co.uk for one site, and example.co.uk apart from other.co.uk', () => {
    expect(siteOf(new URL('https://www.example.co.uk/'))).toBe(siteOf(new URL('http://shop.example.co.uk/x')));
    expect(siteOf(new URL('https://example.co.uk/'))).not.toBe(siteOf(new URL('https://other.co.uk/')));
  });
});

describe('web_scrape filters and size', () => {
  it('keeps only what include matches', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/a`, include: ['h1'] });
    expect(result.output).toContain('# Page A');
    expect(result.output).not.toContain('apples, written out');
  });

  it('leaves out what exclude matches', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/a`, exclude: ['p'] });
    expect(result.output).not.toContain('apples, written out');
  });

  it('answers a selector that is not CSS before fetching anything', async () => {
    const before = site.paths().length;
    const result = await h.call('web_scrape', { url: `${site.base}/a`, include: ['div['] });
    expect(result.success).toBe(false);
    expect(result.output).toContain('"div[" is not a CSS selector');
    expect(site.paths().length).toBe(before);
  });

  it('says so when include matches nothing', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/a`, include: ['table.prices'] });
    expect(result.success).toBe(false);
    expect(result.output).toContain('Nothing on the page matches include');
  });

  it('returns at most max_chars of page text, all pages together', async () => {
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 1, max_chars: 600 });
    // What each page shows: its facts (title, URL), a blank line, then its text and the cut marker.
    const texts = (result.thirdParty ?? []).map((shown) => shown.split('\n\n').slice(1).join('\n\n').replace('\n…[the rest of the page is left out]', ''));
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join('').length).toBeLessThanOrEqual(600);
    expect(texts.join('').length).toBeGreaterThan(500);
  });

  it('shares the room fairly: short pages whole, the rest split among the long ones', () => {
    expect(shares([100, 5000, 5000], 1000)).toEqual([100, 450, 450]);
    expect(shares([10, 20], 1000)).toEqual([10, 20]);
  });
});

describe('web_scrape summaries', () => {
  it('summarizes through the model, with the pages as outside content, and counts the tokens in the day\'s usage', async () => {
    const before = usageToday(h.app.db, h.app.config).totalTokens;
    h.fake.script({ content: 'A site about apples and bananas.', usage: { prompt_tokens: 900, completion_tokens: 40 } });
    const result = await h.call('web_scrape', { url: `${site.base}/`, depth: 1, summarize: true, summary_length: 'short' });
    expect(result.success).toBe(true);
    expect(result.output).toContain(`${EXTERNAL_BEGIN} source="summary of ${site.base}/">>>`);
    expect(result.output).toContain('A site about apples and bananas.');
    const request = h.fake.requests.at(-1);
    expect(String(request?.body.messages[1]?.content)).toContain(`${EXTERNAL_BEGIN} source="${site.base}/a">>>`);
    expect(request?.body.max_tokens ?? request?.body.max_completion_tokens).toBe(250);
    expect(usageToday(h.app.db, h.app.config).totalTokens - before).toBe(940);
  });

  it('refuses a summary once the day\'s token budget is spent, without calling the model', async () => {
    const calls = h.fake.requests.length;
    h.app.config.llm.daily_token_budget = 1;
    try {
      const result = await h.call('web_scrape', { url: `${site.base}/a`, summarize: true });
      expect(result.success).toBe(false);
      expect(result.output).toContain('No summary: I have used today\'s token budget');
      expect(h.fake.requests.length).toBe(calls);
    } finally {
      h.app.config.llm.daily_token_budget = 0;
    }
  });
});
