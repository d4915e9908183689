import vm from 'node:vm';
import { errorMessage } from '../errors.js';
import { fail, ok, type AnyTool, type ToolCallContext, type ToolResult } from '../tools/types.js';
import { RefusedError, type PinnedDir } from '../workspace/pinned-dir.js';
import type { SandboxConfig } from './pool.js';
import { globMatcher, walk, type WalkEntry } from '../workspace/walk.js';
import { fullMessage, splitWorkspacePath, type WorkspaceFiles } from '../workspace/workspace-files.js';
import type { Workspaces } from '../workspace/workspace.js';

const READ_MAX_BYTES = 10_000_000;
const READ_DEFAULT_LINES = 2000;
const LINE_CHARS = 2000;
const MAX_RESULTS = 200;
const LIST_MAX = 1000;
const GREP_FILE_BYTES = 5_000_000;
const GREP_FILE_MS = 1000;
// The model's regular expression runs in a vm context with a timeout: a catastrophic pattern such as
// (a+)+$ would otherwise block the daemon's event loop, and no deadline can interrupt synchronous code.
const MATCH_LINES = new vm.Script('(() => { const hits = []; for (let i = 0; i < lines.length; i += 1) if (re.test(lines[i])) hits.push(i); return hits; })()');
const EMPTY = 'The workspace is empty (no files yet). Create files with write or sandbox_exec.';
const PARTIAL = '(only part of the workspace was searched: it has too many files, or folders nested too deep; narrow the path)';
const PATH_HINT = 'Use a path relative to the workspace (the folder sandbox_exec sees as /workspace), e.g. "src/main.py".';

/** One call's workspace and path: the open workspace, the path's names, and the path as the model should see it. */
interface Target {
  files: WorkspaceFiles;
  names: string[];
  relative: string;
}

/**
 * The file tools work on the host side of the conversation's workspace (no container needed), only through
 * pinned folders (WorkspaceFiles): absolute paths, `..` and symbolic links are refused, nothing is followed,
 * FIFOs and devices are never opened, and a folder the container swaps for a link between two steps cannot
 * lead out of the workspace.
 */
export function createFileTools(workspaces: Workspaces, config: SandboxConfig): AnyTool[] {
  /** Opens the workspace for one call and runs `task`; errors become the message the model can act on. */
  async function inWorkspace(ctx: ToolCallContext, requested: string, verb: string, create: boolean, task: (target: Target) => Promise<ToolResult>): Promise<ToolResult> {
    const split = splitWorkspacePath(requested);
    if (!split.success) return fail(`Refused: ${split.error}. ${PATH_HINT}`);
    let exists: boolean;
    try {
      exists = workspaces.exists(ctx.conversationId);
    } catch (error) {
      return fail(`Refused: ${errorMessage(error)}.`);
    }
    if (!exists && !create) return fail(EMPTY);
    const opened = await workspaces.open(ctx.conversationId, { create });
    if (!opened.success) return fail(`The workspace is not available: ${opened.error}.`);
    const files = opened.value;
    try {
      return await task({ files, names: split.value, relative: split.value.length === 0 ? '.' : split.value.join('/') });
    } catch (error) {
      return fail(await describeFsError(error, requested, verb, files));
    } finally {
      await files.close();
    }
  }

  const read: AnyTool = {
    name: 'read',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    description: 'Read a text file from the conversation\'s workspace (the folder sandbox_exec sees as /workspace), with line numbers. Use offset/limit for long files.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'relative to the workspace, e.g. "src/app.py"' },
        offset: { type: 'integer', minimum: 1, description: 'first line to show (1-based); default 1' },
        limit: { type: 'integer', minimum: 1, maximum: 10000, description: `how many lines; default ${READ_DEFAULT_LINES}` },
      },
      required: ['path'],
      additionalProperties: false,
    },
    async execute(params: { path: string; offset?: number; limit?: number }, ctx) {
      return inWorkspace(ctx, params.path, 'read', false, async ({ files, names, relative }) => {
        const data = await files.read(names, READ_MAX_BYTES);
        return formatRead(data, relative, params.offset ?? 1, params.limit ?? READ_DEFAULT_LINES);
      });
    },
  };

  const write: AnyTool = {
    name: 'write',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    description: `Create or overwrite a file in the conversation's workspace (/workspace in sandbox_exec). Parent folders are created. At most ${config.write_max_bytes} bytes.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'relative to the workspace, e.g. "src/app.py"' },
        content: { type: 'string' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async execute(params: { path: string; content: string }, ctx) {
      const bytes = Buffer.byteLength(params.content);
      if (bytes > config.write_max_bytes) return fail(`The content has ${bytes} bytes; write accepts at most ${config.write_max_bytes}. Split it into several files or generate it with sandbox_exec.`);
      return inWorkspace(ctx, params.path, 'write', true, async ({ files, names, relative }) => {
        const { existed } = await files.write(names, params.content);
        return ok(`${existed ? 'Overwrote' : 'Created'} ${relative} (${bytes} bytes).`);
      });
    },
  };

  const edit: AnyTool = {
    name: 'edit',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    description: 'Replace one exact piece of text in a workspace file. `old` must appear exactly once (include surrounding lines to make it unique); whitespace counts.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        old: { type: 'string', minLength: 1, description: 'the exact text to replace; must occur once' },
        new: { type: 'string', description: 'the replacement text' },
      },
      required: ['path', 'old', 'new'],
      additionalProperties: false,
    },
    async execute(params: { path: string; old: string; new: string }, ctx) {
      return inWorkspace(ctx, params.path, 'edit', false, async ({ files, names, relative }) => {
        const text = (await files.read(names, READ_MAX_BYTES)).toString('utf8');
        const first = text.indexOf(params.old);
        if (first === -1) return fail(`The text to replace was not found in ${relative}; nothing changed. Read the file and copy the exact text (whitespace and indentation included).`);
        const count = text.split(params.old).length - 1;
        if (count > 1) return fail(`The text to replace occurs ${count} times in ${relative}; nothing changed. Include more surrounding lines in "old" so it matches exactly once.`);
        const updated = text.slice(0, first) + params.new + text.slice(first + params.old.length);
        if (Buffer.byteLength(updated) > config.write_max_bytes) return fail(`The edited file would exceed ${config.write_max_bytes} bytes; nothing changed.`);
        await files.write(names, updated);
        const line = text.slice(0, first).split('\n').length;
        return ok(`Edited ${relative} at line ${line}.`);
      });
    },
  };

  const glob: AnyTool = {
    name: 'glob',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    description: 'Find workspace files by name pattern, newest first. `**` spans folders, `*` and `?` stay within a name, `{a,b}` alternatives; a pattern without "/" matches names at any depth (e.g. "*.py").',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'e.g. "**/*.ts", "*.md", "src/{a,b}/*.py"' },
        path: { type: 'string', description: 'folder to search in, relative to the workspace; default the whole workspace' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute(params: { pattern: string; path?: string }, ctx) {
      return inWorkspace(ctx, params.path ?? '.', 'search', false, async ({ files, names, relative }) => {
        const matcher = globMatcher(params.pattern.replace(/^\.\//, ''));
        const { entries, truncated } = await files.withFolder(names, (dir) => walk(dir));
        const hits = entries.filter((entry) => entry.kind !== 'dir' && matcher.test(entry.relative)).sort((a, b) => b.mtimeMs - a.mtimeMs);
        if (hits.length === 0) return ok(`No file matches ${params.pattern}${params.path ? ` under ${relative}` : ''}.${truncated ? ` ${PARTIAL}` : ''}`);
        const prefix = relative === '.' ? '' : `${relative}/`;
        const shown = hits.slice(0, MAX_RESULTS).map((entry) => `${prefix}${entry.relative}`);
        const notes = [hits.length > MAX_RESULTS ? `(${hits.length - MAX_RESULTS} more matches not shown; narrow the pattern)` : '', truncated ? PARTIAL : ''].filter(Boolean);
        return ok([...shown, ...notes].join('\n'));
      });
    },
  };

  const grep: AnyTool = {
    name: 'grep',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    description: 'Search workspace files for a regular expression (JavaScript syntax). Returns "file:line: text". `include` limits the files by glob, e.g. "*.py".',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1 },
        path: { type: 'string', description: 'file or folder relative to the workspace; default the whole workspace' },
        include: { type: 'string', description: 'glob for the files to search, e.g. "*.{ts,js}"' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute(params: { pattern: string; path?: string; include?: string }, ctx) {
      let regex: RegExp;
      try {
        regex = new RegExp(params.pattern);
      } catch (error) {
        return fail(`The pattern is not a valid regular expression (${errorMessage(error)}); escape special characters such as ( [ . * with a backslash.`);
      }
      return inWorkspace(ctx, params.path ?? '.', 'search', false, async ({ files, names, relative }) => {
        const include = params.include ? globMatcher(params.include) : undefined;
        const info = await files.lstat(names);
        if (!info) return fail(`${relative} does not exist.`);
        const lines: string[] = [];
        let more = 0;
        let slow: string | undefined;
        /** Searches one file; FIFOs, links, hard-linked and oversized files are skipped, as unreadable ones. */
        const search = async (dir: PinnedDir, name: string, shownAs: string): Promise<void> => {
          if (slow !== undefined || (include && !include.test(shownAs))) return;
          let data: Buffer;
          try {
            data = await dir.readFile(name, GREP_FILE_BYTES);
          } catch {
            return;
          }
          if (data.subarray(0, 8000).includes(0)) return;
          const text = data.toString('utf8').split('\n');
          let hits: number[];
          try {
            hits = MATCH_LINES.runInContext(vm.createContext({ lines: text, re: regex }), { timeout: GREP_FILE_MS }) as number[];
          } catch {
            slow = shownAs;
            return;
          }
          for (const index of hits) {
            const line = text[index] ?? '';
            if (lines.length >= MAX_RESULTS) {
              more += 1;
              continue;
            }
            lines.push(`${shownAs}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
          }
        };
        let truncated = false;
        if (info.isDirectory()) {
          const prefix = relative === '.' ? '' : `${relative}/`;
          const walked = await files.withFolder(names, (dir) => walk(dir, { onFile: (parent, name, entry: WalkEntry) => search(parent, name, `${prefix}${entry.relative}`) }));
          truncated = walked.truncated;
        } else {
          await files.inParent(names, false, (dir, name) => search(dir, name, relative));
        }
        if (slow !== undefined) return fail(`The pattern took too long on ${slow} (it backtracks too much); simplify it, e.g. avoid nested quantifiers like (a+)+.`);
        if (lines.length === 0) return ok(`No line matches /${params.pattern}/.${truncated ? ` ${PARTIAL}` : ''}`);
        if (more > 0) lines.push(`(${more} more matching lines not shown; narrow the pattern, path or include)`);
        if (truncated) lines.push(PARTIAL);
        return ok(lines.join('\n'));
      });
    },
  };

  const listdir: AnyTool = {
    name: 'listdir',
    group: 'files',
    // The workspace is shared with the container: what is read there is outside content; nothing leaves the machine.
    effects: [],
    external: true,
    aliases: ['list'],
    description: 'List a workspace folder: names (folders end in "/"), sizes and modification times.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'folder relative to the workspace; "." (default) is the workspace itself' } },
      additionalProperties: false,
    },
    async execute(params: { path?: string }, ctx) {
      return inWorkspace(ctx, params.path ?? '.', 'list', false, async ({ files, names, relative }) => {
        const info = await files.lstat(names);
        if (!info) return fail(`${relative} does not exist. Call listdir with "." to see the workspace.`);
        if (info.isSymbolicLink()) throw new RefusedError('link', `${relative} is a symbolic link`);
        if (!info.isDirectory()) return fail(`${relative} is a file; use read to see it.`);
        const { entries } = await files.withFolder(names, (dir) => walk(dir, { limit: LIST_MAX, maxDepth: 1 }));
        if (entries.length === 0) return ok(`${relative === '.' ? 'The workspace' : relative} is empty.`);
        const rows = entries
          .sort((a, b) => Number(b.kind === 'dir') - Number(a.kind === 'dir') || a.relative.localeCompare(b.relative))
          .map((entry) => `${entry.relative}${entry.kind === 'dir' ? '/' : entry.kind === 'link' ? ' (link)' : entry.kind === 'other' ? ' (special file)' : ''}\t${entry.kind === 'dir' ? '-' : `${entry.size} bytes`}\t${new Date(entry.mtimeMs).toISOString()}`);
        // Said first: a long listing is cut at tools.output_chars.
        const more = entries.length >= LIST_MAX ? ` (only the first ${LIST_MAX} entries are shown; use glob to find files)` : '';
        return ok(`${relative} (name, size, modified)${more}:\n${rows.join('\n')}`);
      });
    },
  };

  return [read, write, edit, glob, grep, listdir];
}

function formatRead(data: Buffer, relative: string, first: number, limit: number): ToolResult {
  if (data.subarray(0, 8000).includes(0)) return fail(`${relative} is a binary file (${data.length} bytes); inspect it with sandbox_exec (file, xxd, python).`);
  const lines = data.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return ok(`${relative} is empty.`);
  if (first > lines.length) return fail(`${relative} has ${lines.length} lines; offset ${first} is past the end.`);
  const last = Math.min(lines.length, first - 1 + limit);
  const width = String(last).length;
  const body = lines
    .slice(first - 1, last)
    .map((line, index) => `${String(first + index).padStart(width)}\t${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`)
    .join('\n');
  const more = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; call read with offset ${last + 1} for more)` : '';
  return ok(`${body}${more}`);
}


/** What the model reads when a file operation fails: what happened and what to do next. */
async function describeFsError(error: unknown, requested: string, verb: string, files: WorkspaceFiles): Promise<string> {
  if (error instanceof RefusedError) {
    switch (error.refusal) {
      case 'link':
        return `Refused: ${error.message}; the file tools never follow links (one could lead out of the workspace). Use sandbox_exec for links (e.g. readlink, cat).`;
      case 'folder':
        return `${requested} is a folder; ${verb === 'write' ? 'choose a file path inside it' : 'use listdir'}.`;
      case 'not_file':
        return `Refused: ${error.message}; ${verb} works on regular files only.`;
      case 'not_dir':
        return `${error.message}; check the path with listdir.`;
      case 'hard_link':
        return `Refused: ${error.message}; the file tools do not read hard-linked files (another name could be a file outside the workspace). Copy it with sandbox_exec (cp FILE FILE.copy) and read the copy.`;
      case 'too_large':
        return `${error.message}; look at parts of it with sandbox_exec (head, sed -n, grep).`;
      case 'bad_name':
        return `Refused: ${error.message}. ${PATH_HINT}`;
    }
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${requested} does not exist. Use glob or listdir to find the right path.`;
  if (code === 'ENOTDIR') return `${requested}: a part of the path is a file, not a folder. Use listdir to check.`;
  if (code === 'ELOOP') return `Refused: ${requested} is a symbolic link; the file tools never follow links. Use sandbox_exec for links.`;
  if (code === 'EISDIR') return `${requested} is a folder; use listdir.`;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    const usage = await files.usage().catch(() => undefined);
    return `Cannot ${verb} ${requested}: ${usage ? fullMessage(usage) : 'the disk is full'}. Nothing was changed.`;
  }
  if (code === 'EACCES' || code === 'EPERM') return `Cannot ${verb} ${requested}: permission denied.`;
  return `Cannot ${verb} ${requested}: ${errorMessage(error)}`;
}
