import type { MemoryStore } from '../memory/store.js';
import { errorMessage, StaleWriteError } from '../errors.js';
import { localTimestamp } from './dates.js';
import { frontMatterData, joinMarkdown, splitMarkdown, type MarkdownFile } from './frontmatter.js';
import { failure, succeed, type Result } from '../lib/result.js';

/** Notes live here, one Markdown file each, named after their title (Obsidian links by file name). */
export const NOTES_DIR = 'notes';
export const NOTE_TYPES = ['note', 'goal', 'plan', 'reflection'] as const;
export type NoteType = (typeof NOTE_TYPES)[number];

export interface Note {
  /** Relative to the memory folder: `notes/Pay rent.md`. */
  path: string;
  /** The file name without `.md`: what `[[wikilinks]]` name. */
  name: string;
  title: string;
  tags: string[];
  type: NoteType | string | undefined;
  created: string | undefined;
  updated: string | undefined;
  /** The page a note was saved from: its text is outside content. */
  source: string | undefined;
  data: Record<string, unknown>;
  body: string;
  /** The file as read (for compare-and-swap writes). */
  raw: string;
  file: MarkdownFile;
}

export interface NoteDraft {
  title: string;
  body: string;
  tags?: readonly string[];
  type?: NoteType;
  /** Further front matter (source, byline, published, status, target, period). */
  fields?: Readonly<Record<string, unknown>>;
  conversationId?: string;
}

const UNSAFE_NAME = /[\\/:*?"<>|#^[\]\u0000-\u001f]/g;
const MAX_ATTEMPTS = 4;

/** Parses a note file. Contract: never throws (broken front matter is reported in `file.invalid`). */
export function parseNote(path: string, raw: string): Note {
  const file = splitMarkdown(raw);
  const data = frontMatterData(file);
  const name = path.split('/').pop()?.replace(/\.md$/i, '') ?? path;
  const heading = /^#\s+(.+)$/m.exec(file.body)?.[1]?.trim();
  return {
    path, name, raw, file, data,
    title: text(data.title) ?? heading ?? name,
    tags: noteTags(data.tags, file.body),
    type: text(data.type),
    created: text(data.created),
    updated: text(data.updated),
    source: text(data.source),
    body: file.body,
  };
}

/** Tags from front matter (a list, or a comma/space separated string) and inline `#tags` in the body. */
export function noteTags(value: unknown, body: string): string[] {
  const tags = new Set<string>();
  const add = (tag: string) => {
    const clean = tag.trim().replace(/^#/, '');
    if (clean !== '') tags.add(clean);
  };
  if (Array.isArray(value)) for (const entry of value) add(String(entry));
  else if (typeof value === 'string') for (const entry of value.split(/[,\s]+/)) add(entry);
  // Obsidian's inline tags: `#word` not inside a link or heading marker; code is left alone.
  for (const match of stripCode(body).matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]*\p{L}[\p{L}\p{N}_/-]*)/gu)) add(match[1] ?? '');
  return [...tags];
}

function stripCode(body: string): string {
  return body.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

function text(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** A file name for a title: characters Obsidian cannot link removed, at most 100 characters. */
export function fileNameFor(title: string): string {
  // No leading dot: the memory folder's listing skips hidden files, and '..' must never come of a title.
  const cleaned = title.replace(UNSAFE_NAME, ' ').replace(/\s+/g, ' ').replace(/^[.\s]+/, '').slice(0, 100).trim();
  return cleaned === '' ? 'Untitled' : cleaned;
}

/**
 * Notes as files under `memory_dir/notes/`, written through the MemoryStore (atomic, history, undo) with
 * compare-and-swap: a change is computed from what was read and written only if the file is still that;
 * a hand edit in between makes it read again and redo the change (never a silent overwrite).
 */
export class NoteFiles {
  private readonly memory: MemoryStore;
  private readonly timeZone: string;
  private readonly now: () => number;

  constructor(options: { memory: MemoryStore; timeZone: string; now?: () => number }) {
    this.memory = options.memory;
    this.timeZone = options.timeZone;
    this.now = options.now ?? Date.now;
  }

  /** Paths of every note, sorted. */
  paths(): string[] {
    return this.memory.list().map((file) => file.path).filter((path) => path.startsWith(`${NOTES_DIR}/`) && /\.md$/i.test(path));
  }

  /** Every note, read now (hand edits included). */
  all(): Note[] {
    const notes: Note[] = [];
    for (const path of this.paths()) {
      const note = this.read(path);
      if (note) notes.push(note);
    }
    return notes;
  }

  read(path: string): Note | undefined {
    try {
      return parseNote(path, this.memory.read(path));
    } catch {
      return undefined;
    }
  }

  /** A note by path, file name or title (case-insensitive). Ambiguous or unknown: an error naming candidates. */
  find(reference: string): Result<Note> {
    const wanted = reference.trim().replace(/^\[\[|\]\]$/g, '').replace(/\|.*$/, '');
    if (wanted === '') return failure('Name the note: its title, file name or path (e.g. "notes/Pay rent.md").');
    const paths = this.paths();
    const exact = paths.find((path) => path === wanted || path === `${NOTES_DIR}/${wanted}` || path === `${NOTES_DIR}/${wanted}.md`);
    if (exact) {
      const note = this.read(exact);
      if (note) return succeed(note);
    }
    const lower = wanted.toLowerCase().replace(/\.md$/, '');
    const notes = this.all();
    const byName = notes.filter((note) => note.name.toLowerCase() === lower || note.path.toLowerCase() === lower || note.path.toLowerCase() === `${lower}.md`);
    const matches = byName.length > 0 ? byName : notes.filter((note) => note.title.toLowerCase() === lower);
    if (matches.length === 1 && matches[0]) return succeed(matches[0]);
    if (matches.length > 1) return failure(`"${reference}" matches ${matches.length} notes: ${matches.map((note) => note.path).join(', ')}; give the path.`);
    const near = notes.filter((note) => note.title.toLowerCase().includes(lower)).slice(0, 5);
    return failure(`No note "${reference}".${near.length > 0 ? ` Did you mean: ${near.map((note) => `"${note.title}"`).join(', ')}?` : ' Use note_search to find it.'}`);
  }

  /** Writes a new note; a taken file name gets " 2", " 3"… Never overwrites an existing file. */
  async create(draft: NoteDraft): Promise<Result<Note>> {
    const title = draft.title.replace(/\s+/g, ' ').trim();
    if (title === '') return failure('The note needs a title.');
    const stamp = localTimestamp(this.now(), this.timeZone);
    const data: Record<string, unknown> = { title };
    const tags = cleanTags(draft.tags ?? []);
    if (tags.length > 0) data.tags = tags;
    if (draft.type !== undefined && draft.type !== 'note') data.type = draft.type;
    for (const [key, value] of Object.entries(draft.fields ?? {})) if (value !== undefined && value !== '') data[key] = value;
    data.created = stamp;
    data.updated = stamp;
    const body = draft.body.endsWith('\n') || draft.body === '' ? draft.body : `${draft.body}\n`;
    const content = joinMarkdown({ document: undefined, invalid: undefined, body: body === '' ? '' : `\n${body}`, newline: '\n' }, data);
    const base = fileNameFor(title);
    for (let attempt = 1; attempt <= 50; attempt += 1) {
      const path = `${NOTES_DIR}/${attempt === 1 ? base : `${base} ${attempt}`}.md`;
      if (this.exists(path)) continue;
      try {
        await this.memory.write(path, content, { expected: null, ...(draft.conversationId !== undefined ? { conversationId: draft.conversationId } : {}) });
        return succeed(parseNote(path, content));
      } catch (error) {
        if (error instanceof StaleWriteError) continue; // created in between: take the next name
        return failure(`The note was not written: ${errorMessage(error)}`);
      }
    }
    return failure(`Too many notes are called "${base}"; choose another title.`);
  }

  /**
   * Changes a note: `change` gets the note as it is on disk now and returns the new file text (or an error).
   * Redone on a concurrent hand edit; `updated` is set by `change` callers through `stamp()`.
   */
  async update(reference: string, change: (note: Note) => Result<string>, conversationId?: string): Promise<Result<Note>> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const found = this.find(reference);
      if (!found.success) return found;
      const note = found.value;
      const next = change(note);
      if (!next.success) return next;
      if (next.value === note.raw) return succeed(note);
      try {
        await this.memory.write(note.path, next.value, { expected: note.raw, ...(conversationId !== undefined ? { conversationId } : {}) });
        return succeed(parseNote(note.path, next.value));
      } catch (error) {
        if (error instanceof StaleWriteError) continue;
        return failure(`${note.path} was not changed: ${errorMessage(error)}`);
      }
    }
    return failure(`${reference} keeps changing on disk while I write it; try again in a moment.`);
  }

  async remove(reference: string, conversationId?: string): Promise<Result<Note>> {
    const found = this.find(reference);
    if (!found.success) return found;
    try {
      const removed = await this.memory.remove(found.value.path, { expected: found.value.raw, ...(conversationId !== undefined ? { conversationId } : {}) });
      if (!removed) return failure(`${found.value.path} is already gone.`);
      return succeed(found.value);
    } catch (error) {
      if (error instanceof StaleWriteError) return failure(`${found.value.path} changed on disk just now (edited by hand?); read it again before deleting it.`);
      return failure(`${found.value.path} was not deleted: ${errorMessage(error)}`);
    }
  }

  /** The current timestamp for `updated`. */
  stamp(): string {
    return localTimestamp(this.now(), this.timeZone);
  }

  /** Notes whose body links to `name` (`[[name]]`, `[[name|alias]]`, `[[name#heading]]`). */
  backlinks(name: string): Note[] {
    return this.all().filter((note) => linksTo(note.body, name));
  }

  private exists(path: string): boolean {
    try {
      this.memory.read(path);
      return true;
    } catch {
      return false;
    }
  }
}

export function cleanTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const tag of tags) {
    const clean = tag.trim().replace(/^#/, '').replace(/\s+/g, '-');
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  }
  return out;
}

export function linksTo(body: string, name: string): boolean {
  const lower = name.toLowerCase();
  for (const match of body.matchAll(/\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]/g)) {
    const target = (match[1] ?? '').trim().toLowerCase().replace(/\.md$/, '');
    if (target === lower || target.endsWith(`/${lower}`)) return true;
  }
  return false;
}

/** A body with `addition` appended as its own paragraph, keeping the file's line breaks. */
export function appendToBody(body: string, addition: string, newline: string): string {
  const text = addition.replace(/\r?\n/g, newline).trimEnd();
  if (body.trim() === '') return `${newline}${text}${newline}`;
  const trimmed = body.replace(/(\r?\n)*$/, '');
  return `${trimmed}${newline}${newline}${text}${newline}`;
}

/** Adds a list item at the end: right under a list that ends the body, else as a new paragraph. */
export function appendListItem(body: string, item: string, newline: string): string {
  const trimmed = body.replace(/(\r?\n)*$/, '');
  const lastLine = trimmed.slice(trimmed.lastIndexOf('\n') + 1);
  if (/^\s*[-*+] /.test(lastLine) || /^#{1,6} /.test(lastLine)) return `${trimmed}${newline}${/^#/.test(lastLine) ? newline : ''}${item}${newline}`;
  return appendToBody(body, item, newline);
}

/** The front matter changes plus a fresh `updated`; refused when the front matter cannot be read. */
export function withFields(note: Note, set: Readonly<Record<string, unknown>>, stamp: string, body?: string): Result<string> {
  if (note.file.invalid !== undefined) {
    if (Object.keys(set).length === 0 && body !== undefined) return succeed(body); // body-only change of a file whose front matter is broken: keep it as it is
    return failure(`${note.path} has front matter I cannot read (${note.file.invalid}); fix it by hand first.`);
  }
  return succeed(joinMarkdown({ ...note.file, body: body ?? note.file.body }, { ...set, updated: stamp }));
}
