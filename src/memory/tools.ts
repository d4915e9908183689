import { errorMessage } from '../errors.js';
import { wallClockAt } from '../lib/zoned.js';
import type { MemoryHit } from '../tools/context.js';
import { wrapExternal } from '../tools/external.js';
import { fail, ok, type AnyTool, type ToolCallContext } from '../tools/types.js';

const MAX_WRITE_CHARS = 200_000;
/** Hits asked for beyond the limit: the current turn's own messages (the question itself) are left out afterwards. */
const OWN_TURN_ROOM = 5;

export interface MemoryToolOptions {
  /** The model read `path` in a conversation and saw `content` (the hand-edit guard checks later overwrites against it). */
  onRead?: (conversationId: string, path: string, content: string) => void;
}

/** The memory tools: read (or list), write, search the memory folder's files. */
export function createMemoryTools(options: MemoryToolOptions = {}): AnyTool[] {
  return [memoryReadTool(options), memoryWriteTool(), memorySearchTool()];
}

function memoryReadTool(options: MemoryToolOptions): AnyTool {
  return {
    name: 'memory_read',
    readOnly: true,
    group: 'memory',
    effects: [],
    description:
      'Read a long-term memory file (Markdown) by its path relative to the memory folder. Without a path, list every memory file with its size and last modification time.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'e.g. "profile.md" or "notes/recipes.md"' } },
      additionalProperties: false,
    },
    async execute(params: { path?: string }, ctx) {
      if (!params.path) {
        const files = ctx.memory.list();
        if (files.length === 0) return ok('The memory folder is empty.');
        const lines = files.map((file) => `${file.path}\t${file.size} bytes\t${new Date(file.mtimeMs).toISOString()}`);
        return ok(`${files.length} memory files (path, size, modified):\n${lines.join('\n')}`);
      }
      try {
        const content = ctx.memory.read(params.path);
        options.onRead?.(ctx.conversationId, params.path, content);
        // A file saved from outside (a web page kept as a note) is outside content wherever it is read.
        const source = ctx.memory.outsideSource(params.path, content);
        if (source !== undefined) {
          // Cut before wrapping, so the output cap never removes the end marker.
          const room = Math.max(500, ctx.config.tools.output_chars - 1000);
          const shown = content.length > room ? `${content.slice(0, room)}\n…[cut: the file is longer]` : content;
          return ok(wrapExternal(source, shown), { externalSource: source });
        }
        return ok(content === '' ? `${params.path} is empty.` : content);
      } catch (error) {
        const message = errorMessage(error);
        if (/ENOENT/.test(message)) return fail(`${params.path} does not exist. Call memory_read without a path to list the files.`);
        return fail(`Cannot read ${params.path}: ${message}`);
      }
    },
  };
}

function memoryWriteTool(): AnyTool {
  return {
    name: 'memory_write',
    group: 'memory',
    // Written while outside content is in play, the file is labelled as such (kept out of later prompts);
    // persona.md and profile.md, always in the prompt, need the person's approval then.
    effects: (params: { path?: string }) => [{ kind: 'persist', target: 'memory', ...(typeof params.path === 'string' ? { path: params.path } : {}) }],
    description:
      'Save long-term memory in a Markdown file inside the memory folder. mode "append" adds to the end (best for new facts and notes); "overwrite" replaces the whole file (read it first so nothing is lost). Parent folders are created.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'relative path ending in .md, e.g. "notes/people.md"' },
        content: { type: 'string', maxLength: MAX_WRITE_CHARS },
        mode: { type: 'string', enum: ['overwrite', 'append'], default: 'overwrite' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async execute(params: { path: string; content: string; mode: 'overwrite' | 'append' }, ctx) {
      if (!/\.(md|markdown|txt)$/i.test(params.path)) return fail('Memory files must end in .md (or .txt); choose a path like "notes/topic.md".');
      try {
        const written = await ctx.memory.write(params.path, params.content, { mode: params.mode, conversationId: ctx.conversationId });
        const verb = params.mode === 'append' ? 'Appended to' : written.previous === null ? 'Created' : 'Overwrote';
        return ok(`${verb} ${written.path} (${written.bytes} bytes now).`);
      } catch (error) {
        return fail(`Not written: ${errorMessage(error)}`);
      }
    },
  };
}

function memorySearchTool(): AnyTool {
  return {
    name: 'memory_search',
    readOnly: true,
    group: 'memory',
    effects: [],
    description:
      'Search all memory files (notes, tasks, files edited by hand) and past conversations by words and, when an embedder is configured, by meaning. Returns file entries as path#Lstart-Lend with a snippet (read the file for more), and messages as "conversation ID · date · who" with a snippet.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async execute(params: { query: string; limit: number }, ctx) {
      const wanted = params.limit + OWN_TURN_ROOM;
      const found = ctx.memory.recall ? await ctx.memory.recall(params.query, wanted) : ctx.memory.search(params.query, wanted);
      // This turn's own messages (stored once its first step is) would only echo the question back.
      const hits = found.filter((hit) => hit.conversation === undefined || hit.conversation.turnId !== ctx.turnId).slice(0, params.limit);
      if (hits.length === 0) return ok(`No memory file or past conversation mentions "${params.query}".`);
      let outside: string | undefined;
      const lines = hits.map((hit, index) => {
        const snippet = hit.snippet.replace(/\s+/g, ' ');
        const { where, source } = hit.conversation ? describeMessage(hit, hit.conversation, ctx) : describeEntry(hit, ctx);
        if (source === undefined) return `${index + 1}. ${where}: ${snippet}`;
        outside ??= source;
        return `${index + 1}. ${where}:\n${wrapExternal(source, snippet)}`;
      });
      return ok(lines.join('\n'), outside !== undefined ? { externalSource: outside } : {});
    },
  };
}

/** A file's entry: its path and lines; outside content when the file is labelled so. */
function describeEntry(hit: MemoryHit, ctx: ToolCallContext): { where: string; source: string | undefined } {
  let source: string | undefined;
  try {
    source = ctx.memory.outsideSource(hit.path, ctx.memory.read(hit.path));
  } catch {
    source = undefined;
  }
  return { where: `${hit.path}#L${hit.startLine}-L${hit.endLine}`, source };
}

/**
 * A past chat's message: its conversation, its day in the person's time zone and who said it. A message made while
 * outside content was in play (an answer in a tainted turn may quote a web page) is outside content again here, so
 * searching cannot launder it into the person's words.
 */
function describeMessage(hit: MemoryHit, conversation: NonNullable<MemoryHit['conversation']>, ctx: ToolCallContext): { where: string; source: string | undefined } {
  const day = wallClockAt(conversation.at, ctx.config.timezone);
  const date = `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`;
  const where = `conversation ${hit.path} · ${date} · ${conversation.role === 'user' ? 'you' : 'assistant'}`;
  const source = conversation.sources.length > 0 ? `conversation ${hit.path} (said while reading ${conversation.sources.join(', ')})` : undefined;
  return { where, source };
}
