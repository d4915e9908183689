import { Document, isMap, parseDocument } from 'yaml';

/**
 * A Markdown file with optional YAML front matter, as Obsidian and similar editors write it: a first line
 * `---`, YAML, a line `---` (or `...`), then the body. The body is kept byte for byte; the front matter is
 * edited through the yaml library's document model, so keys, comments and order the person wrote survive.
 */
export interface MarkdownFile {
  /** The YAML between the fences, or undefined when the file has none. */
  document: Document | undefined;
  /** The front matter could not be parsed: the file is treated as having none, and is never rewritten blindly. */
  invalid: string | undefined;
  /** Everything after the closing fence (or the whole file). */
  body: string;
  /** The file's line break, kept when the front matter is written back. */
  newline: '\n' | '\r\n';
}

const OPEN = /^---[ \t]*(\r?\n)/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

export function splitMarkdown(text: string): MarkdownFile {
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const open = OPEN.exec(text);
  if (!open) return { document: undefined, invalid: undefined, body: text, newline };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { document: undefined, invalid: undefined, body: text, newline };
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  const document = parseDocument(yamlText, { prettyErrors: false });
  if (document.errors.length > 0 || (document.contents !== null && !isMap(document.contents))) {
    const reason = document.errors[0]?.message ?? 'the front matter is not a list of keys';
    return { document: undefined, invalid: reason, body: text, newline };
  }
  return { document, invalid: undefined, body, newline };
}

/** The front matter as plain data (empty when there is none). */
export function frontMatterData(file: MarkdownFile): Record<string, unknown> {
  const data: unknown = file.document?.toJS();
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** Joins front matter and body again; `set` values of undefined delete the key. */
export function joinMarkdown(file: MarkdownFile, set: Readonly<Record<string, unknown>> = {}): string {
  const document = file.document ?? new Document({});
  if (document.contents === null) document.contents = document.createNode({});
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) document.delete(key);
    else document.set(key, value);
  }
  let yamlText = document.toString({ lineWidth: 0, flowCollectionPadding: false });
  if (yamlText.trim() === '{}') yamlText = '';
  if (file.newline === '\r\n') yamlText = yamlText.replace(/\r?\n/g, '\r\n');
  const nl = file.newline;
  return `---${nl}${yamlText}${yamlText === '' || yamlText.endsWith(nl) ? '' : nl}---${nl}${file.body}`;
}
