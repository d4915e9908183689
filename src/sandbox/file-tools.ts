import { constants } from 'node:fs';
import { mkdir, open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import vm from 'node:vm';
import { errorMessage } from '../errors.js';
import { writeFileAtomic } from '../lib/atomic-write.js';
import { fail, ok, type AnyTool, type ToolResult } from '../tools/types.js';
import type { SandboxConfig } from './pool.js';
import { globToRegExp, walk } from './walk.js';
import { isInside, type Workspaces } from './workspace.js';

const READ_MAX_BYTES = 10_000_000;
const READ_DEFAULT_LINES = 2000;
const LINE_CHARS = 2000;
const MAX_RESULTS = 200;
const GREP_FILE_BYTES = 5_000_000;
const GREP_FILE_MS = 1000;
// The model's regular expression runs in a vm context with a timeout: a catastrophic pattern such as
// (a+)+$ would otherwise block the daemon's event loop, and no deadline can interrupt synchronous code.
const MATCH_LINES = new vm.Script('(() => { const hits = []; for (let i = 0; i < lines.length; i += 1) if (re.test(lines[i])) hits.push(i); return hits; })()');
const EMPTY = 'The workspace is empty (no files yet). Create files with write or sandbox_exec.';
const PATH_HINT = 'Use a path relative to the workspace (the folder sandbox_exec sees as /workspace), e.g. "src/main.py".';

/**
 * The file tools work on the host side of the conversation's workspace (no container needed), confined
 * to it: absolute paths, `..`, and symbolic links leading outside are refused.
 */
export function createFileTools(workspaces: Workspaces, config: SandboxConfig): AnyTool[] {
  type Located = { success: true; root: string; absolute: string; relative: string } | { success: false; result: ToolResult };

  /** Resolves and re-checks (real path) right before use, so a link planted since is caught. */
  async function locate(conversationId: string, requested: string): Promise<Located> {
    if (!workspaces.exists(conversationId)) return { success: false, result: fail(EMPTY) };
    const resolved = workspaces.resolve(conversationId, requested);
    if (!resolved.success) return { success: false, result: fail(`Refused: ${resolved.error}. ${PATH_HINT}`) };
    const root = await realpath(workspaces.dir(conversationId));
    let absolute = resolved.absolute;
    try {
      // A link inside the workspace is followed here, once; file opens below refuse links.
      absolute = await realpath(resolved.absolute);
      if (!isInside(root, absolute)) return { success: false, result: fail(`Refused: "${requested}" leads outside the workspace. ${PATH_HINT}`) };
    } catch {
      // Does not exist (yet): resolveInside has checked every existing parent.
    }
    return { success: true, root, absolute, relative: resolved.relative };
  }

  /** Reads a regular file without following a final link swapped in after the check. */
  async function readInside(root: string, absolute: string): Promise<Buffer> {
    const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const real = await realpath(`/proc/self/fd/${handle.fd}`).catch(() => absolute);
      if (!isInside(root, real)) throw new Error('the file leads outside the workspace');
      const info = await handle.stat();
      if (!info.isFile()) throw new Error('not a regular file');
      if (info.size > READ_MAX_BYTES) throw new Error(`the file has ${info.size} bytes, more than ${READ_MAX_BYTES}; look at parts of it with sandbox_exec (head, sed -n, grep)`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** Writes atomically, creating parents, and hands new paths to the container user. */
  async function writeInside(root: string, absolute: string, content: string): Promise<void> {
    const created: string[] = [];
    for (let dir = path.dirname(absolute); isInside(root, dir) && dir !== root; dir = path.dirname(dir)) {
      try {
        await stat(dir);
        break;
      } catch {
        created.unshift(dir);
      }
    }
    await mkdir(path.dirname(absolute), { recursive: true });
    const parent = await realpath(path.dirname(absolute));
    if (!isInside(root, parent)) throw new Error('the folder leads outside the workspace');
    await writeFileAtomic(absolute, content);
    workspaces.giveAll([...created, absolute]);
  }

  const read: AnyTool = {
    name: 'read',
    group: 'files',
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
      const located = await locate(ctx.conversationId, params.path);
      if (!located.success) return located.result;
      let data: Buffer;
      try {
        data = await readInside(located.root, located.absolute);
      } catch (error) {
        return fail(describeFsError(error, params.path, 'read'));
      }
      if (data.subarray(0, 8000).includes(0)) return fail(`${located.relative} is a binary file (${data.length} bytes); inspect it with sandbox_exec (file, xxd, python).`);
      const lines = data.toString('utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      if (lines.length === 0) return ok(`${located.relative} is empty.`);
      const first = params.offset ?? 1;
      if (first > lines.length) return fail(`${located.relative} has ${lines.length} lines; offset ${first} is past the end.`);
      const last = Math.min(lines.length, first - 1 + (params.limit ?? READ_DEFAULT_LINES));
      const width = String(last).length;
      const body = lines
        .slice(first - 1, last)
        .map((line, index) => `${String(first + index).padStart(width)}\t${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`)
        .join('\n');
      const more = last < lines.length ? `\n(lines ${first}-${last} of ${lines.length}; call read with offset ${last + 1} for more)` : '';
      return ok(`${body}${more}`);
    },
  };

  const write: AnyTool = {
    name: 'write',
    group: 'files',
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
      await workspaces.ensure(ctx.conversationId);
      const located = await locate(ctx.conversationId, params.path);
      if (!located.success) return located.result;
      if (located.relative === '.') return fail(`Refused: the path names the workspace itself, not a file. ${PATH_HINT}`);
      let existed = false;
      try {
        const info = await stat(located.absolute);
        if (info.isDirectory()) return fail(`${located.relative} is a folder; choose a file path inside it.`);
        existed = true;
      } catch {
        // a new file
      }
      try {
        await writeInside(located.root, located.absolute, params.content);
      } catch (error) {
        return fail(describeFsError(error, params.path, 'write'));
      }
      return ok(`${existed ? 'Overwrote' : 'Created'} ${located.relative} (${bytes} bytes).`);
    },
  };

  const edit: AnyTool = {
    name: 'edit',
    group: 'files',
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
      const located = await locate(ctx.conversationId, params.path);
      if (!located.success) return located.result;
      let text: string;
      try {
        text = (await readInside(located.root, located.absolute)).toString('utf8');
      } catch (error) {
        return fail(describeFsError(error, params.path, 'edit'));
      }
      const first = text.indexOf(params.old);
      if (first === -1) return fail(`The text to replace was not found in ${located.relative}; nothing changed. Read the file and copy the exact text (whitespace and indentation included).`);
      const count = text.split(params.old).length - 1;
      if (count > 1) return fail(`The text to replace occurs ${count} times in ${located.relative}; nothing changed. Include more surrounding lines in "old" so it matches exactly once.`);
      const updated = text.slice(0, first) + params.new + text.slice(first + params.old.length);
      if (Buffer.byteLength(updated) > config.write_max_bytes) return fail(`The edited file would exceed ${config.write_max_bytes} bytes; nothing changed.`);
      try {
        await writeInside(located.root, located.absolute, updated);
      } catch (error) {
        return fail(describeFsError(error, params.path, 'edit'));
      }
      const line = text.slice(0, first).split('\n').length;
      return ok(`Edited ${located.relative} at line ${line}.`);
    },
  };

  const glob: AnyTool = {
    name: 'glob',
    group: 'files',
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
      const located = await locate(ctx.conversationId, params.path ?? '.');
      if (!located.success) return located.result;
      const matcher = globToRegExp(params.pattern.replace(/^\.\//, ''));
      const { entries, truncated } = await walk(located.absolute);
      const hits = entries.filter((entry) => entry.kind !== 'dir' && matcher.test(entry.relative)).sort((a, b) => b.mtimeMs - a.mtimeMs);
      if (hits.length === 0) return ok(`No file matches ${params.pattern}${params.path ? ` under ${located.relative}` : ''}.`);
      const prefix = located.relative === '.' ? '' : `${located.relative}/`;
      const shown = hits.slice(0, MAX_RESULTS).map((entry) => `${prefix}${entry.relative}`);
      const notes = [hits.length > MAX_RESULTS ? `(${hits.length - MAX_RESULTS} more matches not shown; narrow the pattern)` : '', truncated ? '(the workspace has too many files; only part was searched)' : ''].filter(Boolean);
      return ok([...shown, ...notes].join('\n'));
    },
  };

  const grep: AnyTool = {
    name: 'grep',
    group: 'files',
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
      const located = await locate(ctx.conversationId, params.path ?? '.');
      if (!located.success) return located.result;
      const include = params.include ? globToRegExp(params.include) : undefined;
      const info = await stat(located.absolute).catch(() => undefined);
      if (!info) return fail(`${located.relative} does not exist.`);
      const prefix = located.relative === '.' ? '' : `${located.relative}/`;
      const files = info.isFile()
        ? [{ relative: located.relative, absolute: located.absolute, size: info.size }]
        : (await walk(located.absolute)).entries.filter((entry) => entry.kind === 'file').map((entry) => ({ ...entry, relative: `${prefix}${entry.relative}` }));
      const lines: string[] = [];
      let more = 0;
      for (const file of files) {
        if (include && !include.test(file.relative)) continue;
        if (file.size > GREP_FILE_BYTES) continue;
        let data: Buffer;
        try {
          data = await readInside(located.root, file.absolute);
        } catch {
          continue;
        }
        if (data.subarray(0, 8000).includes(0)) continue;
        const text = data.toString('utf8').split('\n');
        let hits: number[];
        try {
          hits = MATCH_LINES.runInContext(vm.createContext({ lines: text, re: regex }), { timeout: GREP_FILE_MS }) as number[];
        } catch {
          return fail(`The pattern took too long on ${file.relative} (it backtracks too much); simplify it, e.g. avoid nested quantifiers like (a+)+.`);
        }
        for (const index of hits) {
          const line = text[index] ?? '';
          if (lines.length >= MAX_RESULTS) {
            more += 1;
            continue;
          }
          lines.push(`${file.relative}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
        }
      }
      if (lines.length === 0) return ok(`No line matches /${params.pattern}/.`);
      if (more > 0) lines.push(`(${more} more matching lines not shown; narrow the pattern, path or include)`);
      return ok(lines.join('\n'));
    },
  };

  const listdir: AnyTool = {
    name: 'listdir',
    group: 'files',
    aliases: ['list'],
    description: 'List a workspace folder: names (folders end in "/"), sizes and modification times.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'folder relative to the workspace; "." (default) is the workspace itself' } },
      additionalProperties: false,
    },
    async execute(params: { path?: string }, ctx) {
      const located = await locate(ctx.conversationId, params.path ?? '.');
      if (!located.success) return located.result;
      const info = await stat(located.absolute).catch(() => undefined);
      if (!info) return fail(`${located.relative} does not exist. Call listdir with "." to see the workspace.`);
      if (!info.isDirectory()) return fail(`${located.relative} is a file; use read to see it.`);
      const { entries } = await walk(located.absolute, 5000);
      const top = entries.filter((entry) => !entry.relative.includes('/'));
      if (top.length === 0) return ok(`${located.relative === '.' ? 'The workspace' : located.relative} is empty.`);
      const rows = top
        .sort((a, b) => Number(b.kind === 'dir') - Number(a.kind === 'dir') || a.relative.localeCompare(b.relative))
        .slice(0, 1000)
        .map((entry) => `${entry.relative}${entry.kind === 'dir' ? '/' : entry.kind === 'link' ? ' (link)' : ''}\t${entry.kind === 'dir' ? '-' : `${entry.size} bytes`}\t${new Date(entry.mtimeMs).toISOString()}`);
      return ok(`${located.relative} (name, size, modified):\n${rows.join('\n')}`);
    },
  };

  return [read, write, edit, glob, grep, listdir];
}

function describeFsError(error: unknown, requested: string, verb: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${requested} does not exist. Use glob or listdir to find the right path.`;
  if (code === 'ELOOP') return `Refused: ${requested} is a symbolic link; ${verb} works on regular files only.`;
  if (code === 'EISDIR') return `${requested} is a folder; use listdir.`;
  if (code === 'EACCES' || code === 'EPERM') return `Cannot ${verb} ${requested}: permission denied.`;
  return `Cannot ${verb} ${requested}: ${errorMessage(error)}`;
}
