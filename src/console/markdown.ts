import { markdownToHtml } from '../lib/markdown-html.js';
import { trusted, type Html } from './html.js';

/** Markdown to HTML for the console (answers, memory files): src/lib/markdown-html.ts, safe whatever the text says. */
export function renderMarkdown(text: string): Html {
  return trusted(markdownToHtml(text));
}
