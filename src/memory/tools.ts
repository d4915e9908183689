import { errorMessage } from '../errors.js';
import { wrapExternal } from '../tools/external.js';
import { fail, ok, type AnyTool } from '../tools/types.js';

const MAX_WRITE_CHARS = 200_000;

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
    group: 'memory',
    effects: [],
    description:
      'Search all memory files (notes, tasks, files edited by hand) by words and, when an embedder is configured, by meaning. Returns entries as path#Lstart-Lend with a snippet; read the file for more.',
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
      const hits = ctx.memory.recall ? await ctx.memory.recall(params.query, params.limit) : ctx.memory.search(params.query, params.limit);
      if (hits.length === 0) return ok(`No memory file mentions "${params.query}".`);
      let outside: string | undefined;
      const lines = hits.map((hit, index) => {
        const snippet = hit.snippet.replace(/\s+/g, ' ');
        const where = `${hit.path}#L${hit.startLine}-L${hit.endLine}`;
        let source: string | undefined;
        try {
          source = ctx.memory.outsideSource(hit.path, ctx.memory.read(hit.path));
        } catch {
          source = undefined;
        }
        if (source === undefined) return `${index + 1}. ${where}: ${snippet}`;
        outside ??= source;
        return `${index + 1}. ${where}:\n${wrapExternal(source, snippet)}`;
      });
      return ok(lines.join('\n'), outside !== undefined ? { externalSource: outside } : {});
    },
  };
}
