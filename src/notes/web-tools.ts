import { wrapOutside } from '../tools/external.js';
import type { AnyTool } from '../tools/types.js';
import type { Note } from './note-files.js';
import type { Crawl } from './crawl.js';
import { MAX_DEPTH, MAX_PAGES } from './crawl-limits.js';
import { checkSelectors, type ScrapedPage } from './scrape.js';
import { summarizePages, type SummaryLength } from './summarize.js';
import type { NotesServices } from './services.js';
import { failure, succeed, type Result } from '../lib/result.js';

/** How much of a page the model gets at most (the saved note keeps all of it). */
const SHOWN_CHARS = 20_000;
/** Room left in a tool result for the facts, the note line and the outside-content markers. */
const FRAME_CHARS = 1500;
/** Pages a crawl reads when max_pages is not given. */
const DEFAULT_PAGES = 10;
/** Obsidian Web Clipper's tag for clipped pages. */
export const CLIPPING_TAG = 'clippings';

/** A page's facts and text as the model reads them: the text wrapped as outside content, and the page's words as shown. */
export function pageForModel(page: ScrapedPage, maxChars = SHOWN_CHARS): { text: string; shown: string } {
  const facts = [`Title: ${page.title}`, page.byline ? `By: ${page.byline}` : undefined, page.published ? `Published: ${page.published}` : undefined, `URL: ${page.url}`]
    .filter(Boolean)
    .join('\n');
  // Cut here, before the registry's output cap would cut the end marker off.
  const limit = Math.max(0, Math.min(SHOWN_CHARS, maxChars));
  const cut = page.markdown.length > limit;
  const text = `${cut ? page.markdown.slice(0, limit) : page.markdown}${cut || page.truncated ? '\n…[the rest of the page is left out]' : ''}`;
  const outside = wrapOutside(page.url, `${facts}\n\n${text}`);
  return { text: `${outside.wrapped}${page.wholePage ? '\n(No article stood out on this page; this is the text of the whole page.)' : ''}`, shown: outside.shown };
}

/** Saves a page as a note: its text, with `source`, `author`, `published` and the clippings tag in the front matter. */
export async function savePage(services: NotesServices, page: ScrapedPage, options: { title?: string; tags?: readonly string[]; conversationId?: string }): Promise<Result<Note>> {
  const created = await services.notes.create({
    title: options.title?.trim() || page.title,
    body: page.markdown,
    tags: [CLIPPING_TAG, ...(options.tags ?? [])],
    fields: { source: page.url, author: page.byline, published: page.published, site: page.siteName, description: page.excerpt?.slice(0, 300) },
    ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
  });
  return created.success ? succeed(created.value) : failure(created.error);
}

interface ScrapeParams {
  url: string;
  save?: boolean;
  title?: string;
  tags?: string[];
  depth?: number;
  max_pages?: number;
  summarize?: boolean;
  summary_length?: SummaryLength;
  max_chars?: number;
  include?: string[];
  exclude?: string[];
  render?: boolean;
}

const SELECTORS = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 10 } as const;

export function createWebScrapeTool(services: NotesServices): AnyTool {
  return {
    name: 'web_scrape',
    // The page's address goes out (checked like the http tool's); the pages a crawl follows are the site's own links,
    // chosen by the pages, not by the model. A saved page is a note labelled with its URL.
    effects: (params: { url?: string; save?: boolean; depth?: number }) => [
      { kind: 'egress', ...(typeof params.url === 'string' ? { url: params.url } : {}), method: 'GET', what: (params.depth ?? 0) > 0 ? 'web pages of one site' : 'a web page' },
      ...(params.save === true ? [{ kind: 'persist' as const, target: 'memory' as const, path: 'notes/' }] : []),
    ],
    aliases: ['webScrape'],
    description:
      'Read a web page as an article: title, author, date and the readable text as Markdown (menus, ads, cookie banners and scripts left out). ' +
      'depth > 0 also reads the pages of the same site it links to (robots.txt honoured), up to max_pages; summarize: true gives a summary instead of the text; ' +
      'include/exclude are CSS selectors for the parts to keep or drop; render: true runs the page\'s scripts in a browser first (for pages that are empty without JavaScript; slower). ' +
      'With save: true each page is also kept as a note (with its source URL) — for "save this page". Same address rules and limits as the http tool.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', minLength: 1, description: 'absolute http(s) URL' },
        save: { type: 'boolean', default: false },
        title: { type: 'string', maxLength: 200, description: 'title for the saved note (default: the page\'s)' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
        depth: { type: 'integer', minimum: 0, maximum: MAX_DEPTH, default: 0, description: 'links to follow away from the page, on the same site (0: this page only)' },
        max_pages: { type: 'integer', minimum: 1, maximum: MAX_PAGES, default: DEFAULT_PAGES, description: 'the most pages read when depth > 0' },
        summarize: { type: 'boolean', default: false, description: 'a summary of the page(s) instead of their text' },
        summary_length: { type: 'string', enum: ['short', 'medium', 'long'], default: 'medium' },
        max_chars: { type: 'integer', minimum: 200, maximum: 100_000, description: `the most characters of page text (or summary) returned, all pages together (default ${SHOWN_CHARS}, within tools.output_chars)` },
        include: { ...SELECTORS, description: 'CSS selectors: only these parts of each page are read (e.g. "article", "#content")' },
        exclude: { ...SELECTORS, description: 'CSS selectors: these parts are left out (e.g. ".sidebar", "table")' },
        render: { type: 'boolean', default: false, description: 'run the page\'s JavaScript in headless chromium before reading it' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    external: true,
    vouches: true,
    // A crawl of max_pages, or a page rendered in a browser, takes longer than one fetch (tools.timeouts.web_scrape overrides).
    timeoutMs: 120_000,
    async execute(params: ScrapeParams, ctx) {
      const filters = { ...(params.include ? { include: params.include } : {}), ...(params.exclude ? { exclude: params.exclude } : {}) };
      const selectors = await checkSelectors(filters);
      if (!selectors.success) return { success: false, output: selectors.error };
      if (params.summarize === true && !services.summary) return { success: false, output: 'summarize needs the LLM, which is not configured here; call web_scrape without summarize.' };
      const read = await services.crawl(params.url, { depth: params.depth ?? 0, maxPages: params.max_pages ?? DEFAULT_PAGES, filters, render: params.render === true, signal: ctx.signal });
      if (!read.success) return { success: false, output: read.error };
      const { pages } = read.value;
      const first = pages[0];
      if (!first) return { success: false, output: `Nothing was read at ${params.url}.` };
      const saved: string[] = [];
      if (params.save === true) {
        for (const [index, page] of pages.entries()) {
          const note = await savePage(services, page, { ...(index === 0 && params.title !== undefined ? { title: params.title } : {}), tags: params.tags ?? [], conversationId: ctx.conversationId });
          saved.push(note.success ? `Saved as ${note.value.path} ([[${note.value.name}]]).` : `Not saved: ${note.error}`);
        }
      }
      const room = Math.min(params.max_chars ?? SHOWN_CHARS, ctx.config.tools.output_chars - FRAME_CHARS * Math.min(pages.length, 4));
      const header = [...saved, ...(pages.length > 1 || (params.depth ?? 0) > 0 ? [`Read ${pages.length} page${pages.length === 1 ? '' : 's'} (depth ${params.depth ?? 0}).`] : [])];
      const footer = crawlFooter(read.value);
      if (params.summarize === true && services.summary) {
        const summary = await summarizePages(services.summary, pages, { length: params.summary_length ?? 'medium', conversationId: ctx.conversationId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
        if (!summary.success) return { success: false, output: summary.error };
        const text = summary.value.length > room ? `${summary.value.slice(0, room)}\n…[the rest of the summary is left out]` : summary.value;
        // Written by our model from outside content: still outside content, and no third party's words (it vouches for nothing).
        const wrapped = wrapOutside(`summary of ${first.url}`, `${text}\n\nPages read:\n${pages.map((page) => `- ${page.title}: ${page.url}`).join('\n')}`);
        return { success: true, output: [...header, wrapped.wrapped, ...footer].join('\n'), externalSource: first.url };
      }
      const shown = shares(pages.map((page) => page.markdown.length), room).map((limit, index) => pageForModel(pages[index] as ScrapedPage, limit));
      return { success: true, output: [...header, ...shown.map((page) => page.text), ...footer].join('\n'), externalSource: first.url, thirdParty: shown.map((page) => page.shown) };
    },
  };
}

/** Splits `room` characters among pages fairly: each gets an equal share, and what a short page leaves goes to the others in order. */
export function shares(lengths: readonly number[], room: number): number[] {
  const given = lengths.map(() => 0);
  let left = Math.max(0, room);
  let open = lengths.map((_, index) => index);
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    for (const index of open) {
      const take = Math.min(share, (lengths[index] ?? 0) - (given[index] ?? 0), left);
      given[index] = (given[index] ?? 0) + take;
      left -= take;
    }
    open = open.filter((index) => (given[index] ?? 0) < (lengths[index] ?? 0));
  }
  return given;
}

/** What a crawl did not read, inside an envelope of its own: the addresses and reasons come from the pages' links. */
function crawlFooter(crawl: Crawl): string[] {
  const lines: string[] = [];
  if (crawl.skipped.length > 0) {
    lines.push(wrapOutside(`pages linked from ${crawl.pages[0]?.url ?? 'the site'}`, `Not read:\n${crawl.skipped.map((skip) => `- ${skip.url}: ${skip.reason}`).join('\n')}`).wrapped);
  }
  const notes = [
    crawl.otherSites > 0 ? `${crawl.otherSites} link${crawl.otherSites === 1 ? '' : 's'} to other sites not followed` : undefined,
    crawl.leftOver > 0 ? `${crawl.leftOver} more link${crawl.leftOver === 1 ? '' : 's'} not read (max_pages reached)` : undefined,
  ].filter((note) => note !== undefined);
  if (notes.length > 0) lines.push(`(${notes.join('; ')}.)`);
  return lines;
}
