import { succeed, type Result } from '../lib/result.js';
import { fail, type AnyTool } from '../tools/types.js';
import { noteHeader, noteText } from './format.js';
import { appendToBody, cleanTags, linksTo, withFields, type Note } from './note-files.js';
import type { NotesServices } from './services.js';
import { DATE, PERSISTS_NOTES } from './tool-schema.js';

const NOTE_REF = { type: 'string', minLength: 1, description: 'the note\'s title, file name or path (e.g. "Pay rent" or "notes/Pay rent.md")' };

interface NoteUpdateParams {
  note: string;
  append?: string;
  body?: string;
  title?: string;
  tags?: string[];
  add_tags?: string[];
  remove_tags?: string[];
}

/** Note tools: create, read, update, delete, search, link. Names are contracts; camelCase aliases too. */
export function createNoteTools(services: NotesServices): AnyTool[] {
  return [noteCreateTool(services), noteReadTool(services), noteUpdateTool(services), noteDeleteTool(services), noteSearchTool(services), noteLinkTool(services)];
}

function noteCreateTool(services: NotesServices): AnyTool {
  const { notes } = services;
  return {
    name: 'note_create',
    effects: PERSISTS_NOTES,
    aliases: ['noteCreate'],
    description:
      'Create a note: a Markdown file in the memory folder\'s notes/ (YAML front matter with title, tags, created, updated; [[wikilinks]] to other notes by title). Use it for things the person wants kept: ideas, facts, meeting notes, lists.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        body: { type: 'string', maxLength: 200_000, description: 'Markdown; link other notes as [[Their title]]' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
        links: { type: 'array', items: { type: 'string' }, maxItems: 20, description: 'titles of notes to link to (added as [[wikilinks]], and linked back from them)' },
      },
      required: ['title'],
      additionalProperties: false,
    },
    async execute(params: { title: string; body?: string; tags?: string[]; links?: string[] }, ctx) {
      let body = params.body ?? '';
      const targets: Note[] = [];
      for (const link of params.links ?? []) {
        const found = notes.find(link);
        if (!found.success) return fail(`Not created: ${found.error}`);
        targets.push(found.value);
        if (!linksTo(body, found.value.name)) body = appendToBody(body, `- [[${found.value.name}]]`, '\n');
      }
      const created = await notes.create({ title: params.title, body, tags: params.tags ?? [], conversationId: ctx.conversationId });
      if (!created.success) return fail(created.error);
      for (const target of targets) await addLink(services, target.path, created.value.name, ctx.conversationId);
      return { success: true, output: `Created ${created.value.path}${targets.length > 0 ? `, linked with ${targets.map((note) => `[[${note.name}]]`).join(', ')}` : ''}. Link to it as [[${created.value.name}]].` };
    },
  };
}

function noteReadTool({ notes }: NotesServices): AnyTool {
  return {
    name: 'note_read',
    readOnly: true,
    effects: [],
    aliases: ['noteRead'],
    description: 'Read a whole note (front matter and body). Notes saved from web pages come back marked as outside content.',
    parameters: { type: 'object', properties: { note: NOTE_REF }, required: ['note'], additionalProperties: false },
    async execute(params: { note: string }, ctx) {
      const found = notes.find(params.note);
      if (!found.success) return fail(found.error);
      const shown = noteText(ctx.memory.outsideSource(found.value.path, found.value.raw), found.value.raw, ctx.config.tools.output_chars - 1000);
      return { success: true, output: `${noteHeader(found.value)}\n${shown.text}`, ...(shown.externalSource ? { externalSource: shown.externalSource } : {}) };
    },
  };
}

function noteUpdateTool({ notes }: NotesServices): AnyTool {
  return {
    name: 'note_update',
    effects: PERSISTS_NOTES,
    aliases: ['noteUpdate'],
    description:
      'Change a note: append text (keeps what is there — prefer this), replace the body, retitle, or set/add/remove tags. A change made by hand in the meantime is kept: the update is applied to the file as it is on disk.',
    parameters: {
      type: 'object',
      properties: {
        note: NOTE_REF,
        append: { type: 'string', maxLength: 200_000, description: 'text added at the end of the body' },
        body: { type: 'string', maxLength: 200_000, description: 'replaces the whole body (front matter kept)' },
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'new title (the file keeps its name so links to it still work)' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 20, description: 'replaces the tags' },
        add_tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
        remove_tags: { type: 'array', items: { type: 'string' }, maxItems: 20 },
      },
      required: ['note'],
      additionalProperties: false,
    },
    async execute(params: NoteUpdateParams, ctx) {
      if (params.append === undefined && params.body === undefined && params.title === undefined && params.tags === undefined && params.add_tags === undefined && params.remove_tags === undefined) {
        return fail('Nothing to change: give append, body, title, tags, add_tags or remove_tags.');
      }
      if (params.append !== undefined && params.body !== undefined) return fail('Give either append or body, not both.');
      const updated = await notes.update(params.note, (note) => updatedNote(note, params, notes.stamp()), ctx.conversationId);
      if (!updated.success) return fail(updated.error);
      return { success: true, output: `Updated ${updated.value.path}.` };
    },
  };
}

/** The note's new text after a note_update: fields set, tags changed, body replaced or appended to. */
function updatedNote(note: Note, params: NoteUpdateParams, stamp: string): Result<string> {
  if (note.file.invalid !== undefined && params.body !== undefined) {
    return { success: false, error: `${note.path} has front matter I cannot read (${note.file.invalid}); replacing its body would lose it. Append instead, or fix the front matter by hand first.` };
  }
  const set: Record<string, unknown> = {};
  if (params.title !== undefined) set.title = params.title.replace(/\s+/g, ' ').trim();
  if (params.tags !== undefined || params.add_tags !== undefined || params.remove_tags !== undefined) {
    const current = Array.isArray(note.data.tags) ? note.data.tags.map(String) : typeof note.data.tags === 'string' ? note.data.tags.split(/[,\s]+/) : [];
    const removed = new Set(cleanTags(params.remove_tags ?? []).map((tag) => tag.toLowerCase()));
    const next = cleanTags([...(params.tags ?? current), ...(params.add_tags ?? [])]).filter((tag) => !removed.has(tag.toLowerCase()));
    set.tags = next.length > 0 ? next : undefined;
  }
  let body: string | undefined;
  if (params.body !== undefined) body = params.body.startsWith('\n') || params.body === '' ? params.body : `\n${params.body}`;
  if (params.append !== undefined) body = appendToBody(note.file.body, params.append, note.file.newline);
  if (body !== undefined && !body.endsWith('\n') && body !== '') body += note.file.newline;
  return withFields(note, set, stamp, body);
}

function noteDeleteTool({ notes }: NotesServices): AnyTool {
  return {
    name: 'note_delete',
    effects: PERSISTS_NOTES,
    aliases: ['noteDelete'],
    description: 'Delete a note (the person can undo it with /undo; links to it from other notes are left as they are and reported).',
    parameters: { type: 'object', properties: { note: NOTE_REF }, required: ['note'], additionalProperties: false },
    async execute(params: { note: string }, ctx) {
      const removed = await notes.remove(params.note, ctx.conversationId);
      if (!removed.success) return fail(removed.error);
      const dangling = notes.backlinks(removed.value.name);
      const note = dangling.length > 0 ? ` ${dangling.length} note(s) still link to it: ${dangling.map((entry) => entry.path).join(', ')}.` : '';
      return { success: true, output: `Deleted ${removed.value.path}.${note} (/undo puts it back.)` };
    },
  };
}

function noteSearchTool({ index }: NotesServices): AnyTool {
  return {
    name: 'note_search',
    readOnly: true,
    effects: [],
    aliases: ['noteSearch'],
    description:
      'Search notes (full text over title, tags and body, best matches first, with a snippet). Without a query: the newest notes, filtered. Filters: tag, type (note, goal, plan, reflection), and a date range on updated (or created) dates.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 500 },
        tag: { type: 'string' },
        type: { type: 'string', enum: ['note', 'goal', 'plan', 'reflection'] },
        after: { ...DATE, description: 'on or after this day (YYYY-MM-DD)' },
        before: { ...DATE, description: 'on or before this day (YYYY-MM-DD)' },
        date: { type: 'string', enum: ['updated', 'created'], default: 'updated' },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
      },
      additionalProperties: false,
    },
    async execute(params: { query?: string; tag?: string; type?: string; after?: string; before?: string; date?: 'updated' | 'created'; limit?: number }, ctx) {
      const hits = index.search({
        ...(params.query !== undefined ? { query: params.query } : {}),
        ...(params.tag !== undefined ? { tag: params.tag } : {}),
        ...(params.type !== undefined ? { type: params.type } : {}),
        ...(params.after !== undefined ? { after: params.after } : {}),
        ...(params.before !== undefined ? { before: params.before } : {}),
        date: params.date ?? 'updated',
        limit: params.limit ?? 10,
      });
      if (hits.length === 0) return { success: true, output: `No notes match${params.query ? ` "${params.query}"` : ''}${params.tag ? ` with tag ${params.tag}` : ''}.` };
      let outside: string | undefined;
      const lines = hits.map((hit, at) => {
        const shown = noteText(ctx.memory.outsideSource(hit.note.path, hit.note.raw), hit.snippet);
        outside ??= shown.externalSource;
        return `${at + 1}. ${noteHeader(hit.note)}\n${shown.text}`;
      });
      return { success: true, output: lines.join('\n'), ...(outside !== undefined ? { externalSource: outside } : {}) };
    },
  };
}

function noteLinkTool(services: NotesServices): AnyTool {
  const { notes } = services;
  return {
    name: 'note_link',
    effects: PERSISTS_NOTES,
    aliases: ['noteLink'],
    description: 'Link two notes both ways: adds [[B]] to A and [[A]] to B (under a "## Links" heading), unless the link is already there.',
    parameters: { type: 'object', properties: { from: NOTE_REF, to: NOTE_REF }, required: ['from', 'to'], additionalProperties: false },
    async execute(params: { from: string; to: string }, ctx) {
      const from = notes.find(params.from);
      if (!from.success) return fail(from.error);
      const to = notes.find(params.to);
      if (!to.success) return fail(to.error);
      if (from.value.path === to.value.path) return fail('A note cannot be linked to itself.');
      const first = await addLink(services, from.value.path, to.value.name, ctx.conversationId);
      if (!first.success) return fail(first.error);
      const second = await addLink(services, to.value.path, from.value.name, ctx.conversationId);
      if (!second.success) return fail(`Linked ${from.value.path} → [[${to.value.name}]], but not back: ${second.error}`);
      const added = [first.value, second.value].filter(Boolean).length;
      return { success: true, output: added === 0 ? 'They were already linked both ways.' : `Linked [[${from.value.name}]] ↔ [[${to.value.name}]].` };
    },
  };
}

/** Adds `- [[name]]` under "## Links" in a note (made at the end if missing); false when already linked. */
export async function addLink(services: NotesServices, path: string, name: string, conversationId: string | undefined) {
  let added = false;
  const result = await services.notes.update(path, (note) => {
    if (linksTo(note.body, name)) return succeed(note.raw);
    added = true;
    const nl = note.file.newline;
    const heading = /^## Links[ \t]*$/m.exec(note.file.body);
    let body: string;
    if (!heading) body = appendToBody(note.file.body, `## Links${nl}${nl}- [[${name}]]`, nl);
    else {
      // After the last list item of the Links section (before the next heading).
      const after = note.file.body.slice(heading.index);
      const next = /\r?\n#{1,6}\s/.exec(after.slice(1));
      const end = next ? heading.index + 1 + next.index : note.file.body.length;
      const section = note.file.body.slice(heading.index, end).replace(/(\r?\n)*$/, '');
      const rest = note.file.body.slice(end);
      body = `${note.file.body.slice(0, heading.index)}${section}${nl}- [[${name}]]${nl}${rest.startsWith('\n') || rest.startsWith('\r\n') || rest === '' ? '' : nl}${rest}`;
    }
    return withFields(note, {}, services.notes.stamp(), body);
  }, conversationId);
  return result.success ? succeed(added) : result;
}
