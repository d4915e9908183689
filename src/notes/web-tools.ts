import { wrapOutside } from '../tools/external.js';
import type { AnyTool } from '../tools/types.js';
import type { Note } from './note-files.js';
import type { ScrapedPage } from './scrape.js';
import type { NotesServices } from './services.js';
import { failure, succeed, type Result } from '../lib/result.js';

/** How much of a page the model gets at most (the saved note keeps all of it). */
const SHOWN_CHARS = 20_000;
/** Room left in a tool result for the facts, the note line and the outside-content markers. */
const FRAME_CHARS = 1500;
/** Obsidian Web Clipper's tag for clipped pages. */
export const CLIPPING_TAG = 'clippings';

/** A page's facts and text as the model reads them: the text wrapped as outside content, and the page's words as shown. */
export function pageForModel(page: ScrapedPage, maxChars = SHOWN_CHARS): { text: string; shown: string } {
  const facts = [`Title: ${page.title}`, page.byline ? `By: ${page.byline}` : undefined, page.published ? `Published: ${page.published}` : undefined, `URL: ${page.url}`]
    .filter(Boolean)
    .join('\n');
  // Cut here, before the registry's output cap would cut the end marker off.
  const limit = Math.max(500, Math.min(SHOWN_CHARS, maxChars));
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

export function createWebScrapeTool(services: NotesServices): AnyTool {
  return {
    name: 'web_scrape',
    // The page's address goes out (checked like the http tool's); a saved page is a note labelled with its URL.
    effects: (params: { url?: string; save?: boolean }) => [{ kind: 'egress', ...(typeof params.url === 'string' ? { url: params.url } : {}), method: 'GET', what: 'a web page' }, ...(params.save === true ? [{ kind: 'persist' as const, target: 'memory' as const, path: 'notes/' }] : [])],
    aliases: ['webScrape'],
    description:
      'Read a web page as an article: title, author, date and the readable text as Markdown (menus, ads, cookie banners and scripts left out). With save: true it is also kept as a note (with its source URL) — for "save this page". Same address rules and limits as the http tool.',
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', minLength: 1, description: 'absolute http(s) URL' },
        save: { type: 'boolean', default: false },
        title: { type: 'string', maxLength: 200, description: 'title for the saved note (default: the page\'s)' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
      },
      required: ['url'],
      additionalProperties: false,
    },
    external: true,
    vouches: true,
    async execute(params: { url: string; save?: boolean; title?: string; tags?: string[] }, ctx) {
      const page = await services.scrape(params.url, ctx.signal);
      if (!page.success) return { success: false, output: page.error };
      let saved = '';
      if (params.save === true) {
        const note = await savePage(services, page.value, { ...(params.title !== undefined ? { title: params.title } : {}), tags: params.tags ?? [], conversationId: ctx.conversationId });
        saved = note.success ? `Saved as ${note.value.path} ([[${note.value.name}]]).\n` : `Not saved: ${note.error}\n`;
      }
      const shown = pageForModel(page.value, ctx.config.tools.output_chars - FRAME_CHARS);
      return { success: true, output: `${saved}${shown.text}`, externalSource: page.value.url, thirdParty: [shown.shown] };
    },
  };
}
