import { fetchGuarded, HttpFetchError, type GuardedOptions, type Resolver } from '../net/fetch-guarded.js';
import { decode, headerText } from '../net/body-text.js';
import { presetOriginsOf } from '../net/ssrf.js';
import type { ToolsConfig } from '../config/schema.js';
import type { Renderer } from './render.js';
import { failure, succeed, type Result } from '../lib/result.js';

export interface ScrapedPage {
  /** The final URL, after redirects. */
  url: string;
  title: string;
  byline: string | undefined;
  /** As the page states it (ISO when it gives one). */
  published: string | undefined;
  siteName: string | undefined;
  excerpt: string | undefined;
  /** The readable article as Markdown. */
  markdown: string;
  /** The body was cut at tools.http.max_bytes. */
  truncated: boolean;
  /** No article was found: the whole body's text is given instead. */
  wholePage: boolean;
  /** The page's http(s) links, absolute and without fragments, in document order (for following them). */
  links: string[];
}

/** Which parts of a page are kept: CSS selectors (`include`: only what matches; `exclude`: all but what matches). */
export interface PageFilters {
  include?: readonly string[];
  exclude?: readonly string[];
}

export interface ScrapeOptions {
  http: ToolsConfig['http'];
  /** Name resolution for the SSRF guard (tests). */
  resolve?: Resolver;
  signal?: AbortSignal;
  filters?: PageFilters;
  /** Load the page in headless chromium and read it once its scripts have run (see render.ts). */
  render?: boolean;
  /** A browser shared by several pages (a crawl's); absent, one is launched for this page. */
  renderer?: Renderer;
}

type Libraries = {
  parseHTML: (typeof import('linkedom'))['parseHTML'];
  Readability: (typeof import('@mozilla/readability'))['Readability'];
  turndown: (html: string) => string;
};

let libraries: Promise<Libraries> | undefined;
/** linkedom, Readability and turndown are loaded with the first page, not at start. */
function load(): Promise<Libraries> {
  libraries ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown'), import('@joplin/turndown-plugin-gfm')]).then(
    ([linkedom, readability, turndownModule, gfmModule]) => {
      const TurndownService = turndownModule.default;
      const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
      // A CommonJS module: its functions are on the default export when imported from ESM.
      const gfm = (gfmModule as { default?: { gfm?: typeof gfmModule.gfm } }).default?.gfm ?? gfmModule.gfm;
      service.use(gfm);
      // Images would make an editor fetch them from the page's site; their alt text is enough in a note.
      service.addRule('images', { filter: 'img', replacement: (_content, node) => ((node as { getAttribute(name: string): string | null }).getAttribute('alt') ?? '').trim() });
      service.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'svg', 'canvas']);
      return { parseHTML: linkedom.parseHTML, Readability: readability.Readability, turndown: (html: string) => service.turndown(html) };
    },
  );
  return libraries;
}

// Overlays that are not the article: cookie and consent banners, newsletter pop-ups, modal dialogs.
const NOISE = /(^|[-_\s])(cookie|cookies|consent|gdpr|cmp|newsletter|subscribe|paywall|popup|modal|overlay|banner|share|social|related|comments?)([-_\s]|$)/i;

/**
 * Fetches a page through the `http` tool's guarded path (SSRF rules on every hop, time and size limits,
 * the charset of the header or the page's <meta>) and extracts its readable article with Mozilla's
 * Readability on a linkedom DOM, as Markdown (turndown, with GitHub tables). Contract: never throws.
 */
export async function scrapePage(rawUrl: string, options: ScrapeOptions): Promise<Result<ScrapedPage>> {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return failure(`"${rawUrl}" is not a URL; give an absolute http(s) address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return failure(`Only http and https pages can be read (got ${url.protocol}).`);
  const guard = guardOptions(options);
  if (options.render === true) {
    const rendered = options.renderer ? await options.renderer.render(url) : await (await import('./render.js')).renderPage(url, guard, { signal: options.signal });
    if (!rendered.success) return rendered;
    if (rendered.value.status >= 400) return failure(`${rendered.value.url.href} answered ${rendered.value.status}${rendered.value.status === 404 ? '; check the URL' : ''}.`);
    return extracted(rendered.value.html, rendered.value.url, false, options.filters);
  }
  let response;
  try {
    response = await fetchGuarded({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.3' } }, guard);
  } catch (error) {
    if (error instanceof HttpFetchError) {
      const hint = error.kind === 'blocked' ? ' Do not retry this address; the person can allow a host in tools.http.allow_hosts.' : error.kind === 'timeout' ? ' Try again later.' : '';
      return failure(`Could not read ${url.href}: ${error.message}.${hint}`);
    }
    return failure(`Could not read ${url.href}: ${(error as Error).message}`);
  }
  if (response.status >= 400) {
    return failure(`${url.href} answered ${response.status} ${response.statusText}${response.status === 404 ? '; check the URL' : response.status === 401 || response.status === 403 ? '; the page needs a login or refuses robots' : ''}.`);
  }
  const contentType = headerText(response.headers['content-type']);
  const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const final = response.url.href;
  const html = mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && /^\s*<(!doctype|html)/i.test(response.body.subarray(0, 200).toString('latin1')));
  if (!html) {
    if (mime.startsWith('text/')) {
      const text = decode(response.body, contentType, false);
      return succeed({ url: final, title: url.pathname.split('/').pop() || url.hostname, byline: undefined, published: undefined, siteName: undefined, excerpt: undefined, markdown: text.trim(), truncated: response.truncated, wholePage: true, links: [] });
    }
    return failure(`${final} is not a web page (${mime || 'no content type'}); use the http tool with as_file for files.`);
  }
  return extracted(decode(response.body, contentType, true), response.url, response.truncated, options.filters);
}

/** The http tool's address rules and limits, for every request a page read makes. */
export function guardOptions(options: Pick<ScrapeOptions, 'http' | 'resolve' | 'signal'>): GuardedOptions {
  const { http } = options;
  return {
    rules: { allowPrivate: http.allow_private, allowHosts: http.allow_hosts, allowOrigins: presetOriginsOf(http.presets) },
    timeoutMs: http.timeout_s * 1000,
    maxBytes: http.max_bytes,
    maxRedirects: http.max_redirects,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
}

async function extracted(htmlText: string, url: URL, truncated: boolean, filters: PageFilters | undefined): Promise<Result<ScrapedPage>> {
  try {
    const page = await extract(htmlText, url, filters);
    if (!page.success) return page;
    return succeed({ ...page.value, url: url.href, truncated });
  } catch (error) {
    return failure(`The page at ${url.href} could not be read as an article: ${(error as Error).message}`);
  }
}

/**
 * Readability over an HTML string; the whole body as Markdown when no article stands out. With `include`, the text is
 * exactly what those selectors match (no guessing at the article); `exclude` removes what its selectors match first.
 */
export async function extract(htmlText: string, base: URL, filters: PageFilters = {}): Promise<Result<Omit<ScrapedPage, 'url' | 'truncated'>>> {
  const { parseHTML, Readability, turndown } = await load();
  const { document } = parseHTML(htmlText);
  // linkedom has no base URL, and Readability keeps links as written: make them absolute first.
  for (const [selector, attribute] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (value === null) continue;
      try {
        const absolute = new URL(value, base);
        if (absolute.protocol === 'javascript:') element.removeAttribute(attribute);
        else element.setAttribute(attribute, absolute.href);
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
  const links = linksOf(document);
  const selected = select(document, filters);
  if (!selected.success) return selected;
  const meta = (name: string) => document.querySelector(`meta[property="${name}"], meta[name="${name}"]`)?.getAttribute('content')?.trim() || undefined;
  const pageTitle = document.querySelector('title')?.textContent?.replace(/\s+/g, ' ').trim();
  const heading = clean(document.querySelector('h1')?.textContent);
  const timeElement = document.querySelector('article time[datetime], time[datetime]')?.getAttribute('datetime') ?? undefined;
  for (const element of [...document.querySelectorAll('[id], [class], [role], [aria-modal]')]) {
    const role = element.getAttribute('role');
    const label = `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`;
    if (role === 'dialog' || role === 'alertdialog' || element.getAttribute('aria-modal') === 'true' || (NOISE.test(label) && element.tagName !== 'BODY' && element.tagName !== 'HTML' && element.tagName !== 'ARTICLE' && element.tagName !== 'MAIN')) {
      element.remove();
    }
  }
  for (const element of [...document.querySelectorAll('nav, footer, aside, script, style, noscript, template')]) element.remove();
  if (selected.value !== undefined) {
    const html = selected.value.map((element) => element.outerHTML).join('\n');
    return succeed({
      title: pageTitle ?? heading ?? base.hostname, byline: clean(meta('author')), published: clean(meta('article:published_time') ?? timeElement), siteName: clean(meta('og:site_name')),
      excerpt: undefined, markdown: tidy(turndown(html)), wholePage: false, links,
    });
  }
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 250 }).parse();
  const published = article?.publishedTime ?? meta('article:published_time') ?? meta('datePublished') ?? meta('date') ?? timeElement;
  const byline = clean(article?.byline ?? meta('author'));
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    return succeed({
      title: articleTitle(clean(article.title) ?? pageTitle, heading, clean(meta('og:title'))) ?? base.hostname,
      byline, published: clean(published), siteName: clean(article.siteName ?? meta('og:site_name')),
      excerpt: clean(article.excerpt), markdown: tidy(turndown(article.content)), wholePage: false, links,
    });
  }
  const body = document.querySelector('body');
  return succeed({
    title: pageTitle ?? base.hostname, byline, published: clean(published), siteName: clean(meta('og:site_name')), excerpt: undefined,
    markdown: tidy(turndown(body?.innerHTML ?? htmlText)), wholePage: true, links,
  });
}

/** Checks include/exclude selectors on an empty page, so a typo is answered before any request. */
export async function checkSelectors(filters: PageFilters): Promise<Result<void>> {
  const { parseHTML } = await load();
  const checked = select(parseHTML('<html><body></body></html>').document, { exclude: [...(filters.exclude ?? []), ...(filters.include ?? [])] });
  return checked.success ? succeed(undefined) : checked;
}

type Page = ReturnType<Libraries['parseHTML']>['document'];
type PageElement = ReturnType<Page['querySelectorAll']>[number];

/** The page's http(s) links (made absolute above), without fragments, each once. */
function linksOf(document: Page): string[] {
  const links = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href]')) {
    try {
      const link = new URL(anchor.getAttribute('href') ?? '');
      if (link.protocol !== 'http:' && link.protocol !== 'https:') continue;
      link.hash = '';
      links.add(link.href);
    } catch {
      // Left relative only when it could not be resolved: nothing to follow.
    }
  }
  return [...links];
}

/** Applies `exclude` (removed) and `include` (what is kept: the outermost matches, in document order; undefined = no include). */
function select(document: Page, filters: PageFilters): Result<PageElement[] | undefined> {
  const query = (selector: string): Result<PageElement[]> => {
    try {
      return succeed([...document.querySelectorAll(selector)]);
    } catch (error) {
      return failure(`"${selector}" is not a CSS selector this reader understands (${(error as Error).message}); fix it or leave it out.`);
    }
  };
  for (const selector of filters.exclude ?? []) {
    const found = query(selector);
    if (!found.success) return found;
    for (const element of found.value) element.remove();
  }
  if (filters.include === undefined || filters.include.length === 0) return succeed(undefined);
  const kept: PageElement[] = [];
  for (const selector of filters.include) {
    const found = query(selector);
    if (!found.success) return found;
    kept.push(...found.value);
  }
  const outermost = [...new Set(kept)].filter((element) => !kept.some((other) => other !== element && other.contains(element)));
  if (outermost.length === 0) return failure(`Nothing on the page matches include (${filters.include.join(', ')}); check the selectors, or leave include out to read the article.`);
  const all = [...document.querySelectorAll('*')];
  return succeed(outermost.sort((a, b) => all.indexOf(a) - all.indexOf(b)));
}

/** "Title | Site" as the <title> has it: the page's own heading or og:title when the title starts with it. */
function articleTitle(title: string | undefined, heading: string | undefined, ogTitle: string | undefined): string | undefined {
  for (const candidate of [heading, ogTitle]) {
    if (candidate !== undefined && title !== undefined && title !== candidate && title.startsWith(candidate) && /^\s*[|\-–—·:]/.test(title.slice(candidate.length))) return candidate;
  }
  return title ?? heading ?? ogTitle;
}

function clean(value: string | null | undefined): string | undefined {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text === undefined || text === '' ? undefined : text;
}

function tidy(markdown: string): string {
  return markdown.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
}
