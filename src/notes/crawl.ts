import robotsModule from 'robots-parser';
import { getDomain } from 'tldts';
import { fetchGuarded, HttpFetchError } from '../net/fetch-guarded.js';
import { decode, headerText } from '../net/body-text.js';
import { succeed, type Result } from '../lib/result.js';
import { guardOptions, scrapePage, type ScrapedPage, type ScrapeOptions } from './scrape.js';
import { MAX_DEPTH, MAX_PAGES } from './crawl-limits.js';

/** The name robots.txt rules are matched against (a group for `Familiar`, else `*`). */
export const ROBOTS_AGENT = 'Familiar';

export interface CrawlOptions extends ScrapeOptions {
  /** 0: the start page only. */
  depth: number;
  maxPages: number;
}

export interface Crawl {
  /** The pages read, the start page first, then breadth first in the order their links were found. */
  pages: ScrapedPage[];
  /** Pages linked but not read, with the reason (robots.txt, the address guard, an error, another site after a redirect). */
  skipped: Array<{ url: string; reason: string }>;
  /** Links to other sites, not followed. */
  otherSites: number;
  /** Links left when max_pages was reached. */
  leftOver: number;
}

type Robots = { allowed(url: URL): true | string };

// A CommonJS module whose types declare an ES default export: at run time the function is the module itself.
const robotsParser = robotsModule as unknown as typeof robotsModule.default;

/**
 * Reads a page and, to `depth` links away, the pages of the same site it links to (the same registrable domain as the
 * start URL: `www.example.org` and `docs.example.org` are one site, `example.net` is not), at most `maxPages`. Every
 * page and every redirect hop goes through the guarded fetch; a followed page is read only when its origin's
 * robots.txt allows it (fetched once per origin per crawl). The start page is read because the person asked for it,
 * as a browser would; robots.txt speaks to crawlers, which is what following links makes of this.
 * Contract: never throws; fails only when the start page cannot be read.
 */
export async function crawl(start: string, options: CrawlOptions): Promise<Result<Crawl>> {
  if (options.render !== true || options.depth <= 0) return crawlWith(start, options);
  // One browser for the whole crawl, closed when it ends.
  const renderer = (await import('./render.js')).openRenderer(guardOptions(options), { signal: options.signal });
  try {
    return await crawlWith(start, { ...options, renderer });
  } finally {
    await renderer.close();
  }
}

async function crawlWith(start: string, options: CrawlOptions): Promise<Result<Crawl>> {
  const first = await scrapePage(start, options);
  if (!first.success) return first;
  const depth = Math.max(0, Math.min(MAX_DEPTH, Math.floor(options.depth)));
  const maxPages = Math.max(1, Math.min(MAX_PAGES, Math.floor(options.maxPages)));
  const result: Crawl = { pages: [first.value], skipped: [], otherSites: 0, leftOver: 0 };
  if (depth === 0) return succeed(result);
  const site = siteOf(new URL(start.trim()));
  const seen = new Set([withoutHash(start.trim()), withoutHash(first.value.url)]);
  // The pages read, by their final address: a link that redirects to one of them is not read twice.
  const read = new Set([withoutHash(first.value.url)]);
  const robots = new Map<string, Promise<Robots>>();
  let frontier = [first.value];
  for (let level = 1; level <= depth && frontier.length > 0; level += 1) {
    const next: ScrapedPage[] = [];
    const queue = frontier.flatMap((page) => page.links).filter((link) => {
      if (seen.has(link)) return false;
      seen.add(link);
      if (siteOf(new URL(link)) === site) return true;
      result.otherSites += 1;
      return false;
    });
    for (const [index, link] of queue.entries()) {
      if (result.pages.length >= maxPages) {
        result.leftOver += queue.length - index;
        break;
      }
      if (options.signal?.aborted) return succeed(result);
      const url = new URL(link);
      const verdict = (await robotsFor(url, robots, options)).allowed(url);
      if (verdict !== true) {
        result.skipped.push({ url: link, reason: verdict });
        continue;
      }
      const page = await scrapePage(link, options);
      if (!page.success) {
        result.skipped.push({ url: link, reason: page.error });
        continue;
      }
      if (siteOf(new URL(page.value.url)) !== site) {
        result.skipped.push({ url: link, reason: `redirected to another site (${new URL(page.value.url).host}); not read` });
        continue;
      }
      const final = withoutHash(page.value.url);
      seen.add(final);
      if (read.has(final)) continue;
      read.add(final);
      result.pages.push(page.value);
      next.push(page.value);
    }
    frontier = next;
  }
  return succeed(result);
}

/** The registrable domain (eTLD+1, by the Public Suffix List); an address or a single-label host stands for itself. */
export function siteOf(url: URL): string {
  return getDomain(url.hostname) ?? url.hostname.toLowerCase();
}

function withoutHash(link: string): string {
  try {
    const url = new URL(link);
    url.hash = '';
    return url.href;
  } catch {
    return link;
  }
}

/** One origin's robots.txt, fetched once per crawl (through the guard, like the pages). */
function robotsFor(url: URL, cache: Map<string, Promise<Robots>>, options: CrawlOptions): Promise<Robots> {
  let robots = cache.get(url.origin);
  if (!robots) {
    robots = loadRobots(new URL('/robots.txt', url.origin), options);
    cache.set(url.origin, robots);
  }
  return robots;
}

/**
 * As RFC 9309 says: a robots.txt that is missing (4xx) allows everything; one that cannot be read (5xx, a network
 * failure, the address guard) disallows everything, since nothing says the site agrees.
 */
async function loadRobots(address: URL, options: CrawlOptions): Promise<Robots> {
  try {
    const response = await fetchGuarded({ method: 'GET', url: address, headers: { accept: 'text/plain' } }, { ...guardOptions(options), maxBytes: Math.min(options.http.max_bytes, 500_000) });
    if (response.status >= 400 && response.status < 500) return { allowed: () => true };
    if (response.status >= 500) return { allowed: () => `${address.href} answered ${response.status}, so the site is not crawled` };
    const parsed = robotsParser(address.href, decode(response.body, headerText(response.headers['content-type']), false));
    return { allowed: (url) => (parsed.isAllowed(url.href, ROBOTS_AGENT) === false ? `${address.href} disallows it` : true) };
  } catch (error) {
    const reason = error instanceof HttpFetchError ? error.message : (error as Error).message;
    return { allowed: () => `${address.href} could not be read (${reason}), so the site is not crawled` };
  }
}
