import type { Effect } from '../tools/effects.js';
import { fail, ok, type AnyTool, type ToolCallContext, type ToolResult, workspaceIdOf } from '../tools/types.js';
import { RefusedError, type Ownership } from '../workspace/pinned-dir.js';
import type { SandboxConfig } from './pool.js';
import { globMatcher, walk } from '../workspace/walk.js';
import type { Workspaces } from '../workspace/workspace.js';
import { PARTIAL, WORKSPACE_TOOL, workspaceRunner, type InWorkspace, type Target } from './file-workspace.js';
import { createGrepTool } from './grep-tool.js';
import { existingFileRefusal, guestOf, GuestFiles } from './guest.js';

const READ_MAX_BYTES = 10_000_000;
const READ_DEFAULT_LINES = 2000;
const LINE_CHARS = 2000;
const MAX_RESULTS = 200;
const LIST_MAX = 1000;

/**
 * The file tools work on the host side of the conversation's workspace (no container needed), only through
 * pinned folders (WorkspaceFiles): absolute paths, `..` and symbolic links are refused, nothing is followed,
 * FIFOs and devices are never opened, and a folder the container swaps for a link between two steps cannot
 * lead out of the workspace.
 */
export function createFileTools(workspaces: Workspaces, config: SandboxConfig): AnyTool[] {
  const inWorkspace = workspaceRunner(workspaces);
  const guestFiles = new GuestFiles(guestOf(config.guest_user), workspaces.ownership().owner !== undefined);
  return [
    createReadTool(inWorkspace),
    createWriteTool(inWorkspace, config, guestFiles),
    createEditTool(inWorkspace, config, guestFiles),
    createGlobTool(inWorkspace),
    createGrepTool(inWorkspace),
    createListdirTool(inWorkspace),
  ];
}

function createReadTool(inWorkspace: InWorkspace): AnyTool {
  return {
    name: 'read',
    ...WORKSPACE_TOOL,
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
}

/** `modify_existing`, which write and edit take: see guest.ts. */
const MODIFY_EXISTING = {
  type: 'boolean',
  description: 'only when the person asked to change this file, it was already in the workspace, and outside content was read in this turn (the person is asked first)',
} as const;

/** A write may change an existing file: one the person named goes ahead, else only an explicit call with a yes. */
function modifyEffects(params: { path?: string; modify_existing?: boolean }): Effect[] {
  return [{ kind: 'modify', target: 'workspace', explicit: params.modify_existing === true, ...(params.path ? { path: params.path } : {}) }];
}

/**
 * Writes in a guest turn (guest.ts): a file the person had is refused; what such a turn makes is the guest's.
 * Returns the refusal, or the ownership to write with (undefined: the workspace's own).
 */
async function guestWrite(guestFiles: GuestFiles, ctx: ToolCallContext, target: Target): Promise<{ refusal?: string; ownership?: Ownership }> {
  if (ctx.guest !== true) return {};
  const before = await target.files.lstat(target.names);
  if (before && !guestFiles.mayChange(workspaceIdOf(ctx), target.relative, before)) return { refusal: existingFileRefusal(ctx, target.relative) };
  guestFiles.remember(workspaceIdOf(ctx), target.relative);
  const ownership = guestFiles.ownership();
  return ownership ? { ownership } : {};
}

function createWriteTool(inWorkspace: InWorkspace, config: SandboxConfig, guestFiles: GuestFiles): AnyTool {
  return {
    name: 'write',
    ...WORKSPACE_TOOL,
    effects: modifyEffects,
    description: `Create or overwrite a file in the conversation's workspace (/workspace in sandbox_exec). Parent folders are created. At most ${config.write_max_bytes} bytes.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'relative to the workspace, e.g. "src/app.py"' },
        content: { type: 'string' },
        modify_existing: MODIFY_EXISTING,
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    async execute(params: { path: string; content: string; modify_existing?: boolean }, ctx) {
      const bytes = Buffer.byteLength(params.content);
      if (bytes > config.write_max_bytes) return fail(`The content has ${bytes} bytes; write accepts at most ${config.write_max_bytes}. Split it into several files or generate it with sandbox_exec.`);
      return inWorkspace(ctx, params.path, 'write', true, async (target) => {
        const { files, names, relative } = target;
        const guest = await guestWrite(guestFiles, ctx, target);
        if (guest.refusal) return fail(guest.refusal);
        const { existed } = await files.write(names, params.content, guest.ownership);
        return ok(`${existed ? 'Overwrote' : 'Created'} ${relative} (${bytes} bytes).`);
      });
    },
  };
}

function createEditTool(inWorkspace: InWorkspace, config: SandboxConfig, guestFiles: GuestFiles): AnyTool {
  return {
    name: 'edit',
    ...WORKSPACE_TOOL,
    effects: modifyEffects,
    description: 'Replace one exact piece of text in a workspace file. `old` must appear exactly once (include surrounding lines to make it unique); whitespace counts.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        old: { type: 'string', minLength: 1, description: 'the exact text to replace; must occur once' },
        new: { type: 'string', description: 'the replacement text' },
        modify_existing: MODIFY_EXISTING,
      },
      required: ['path', 'old', 'new'],
      additionalProperties: false,
    },
    async execute(params: { path: string; old: string; new: string; modify_existing?: boolean }, ctx) {
      return inWorkspace(ctx, params.path, 'edit', false, async (target) => {
        const { files, names, relative } = target;
        const guest = await guestWrite(guestFiles, ctx, target);
        if (guest.refusal) return fail(guest.refusal);
        const text = (await files.read(names, READ_MAX_BYTES)).toString('utf8');
        const first = text.indexOf(params.old);
        if (first === -1) return fail(`The text to replace was not found in ${relative}; nothing changed. Read the file and copy the exact text (whitespace and indentation included).`);
        const count = text.split(params.old).length - 1;
        if (count > 1) return fail(`The text to replace occurs ${count} times in ${relative}; nothing changed. Include more surrounding lines in "old" so it matches exactly once.`);
        const updated = text.slice(0, first) + params.new + text.slice(first + params.old.length);
        if (Buffer.byteLength(updated) > config.write_max_bytes) return fail(`The edited file would exceed ${config.write_max_bytes} bytes; nothing changed.`);
        await files.write(names, updated, guest.ownership);
        const line = text.slice(0, first).split('\n').length;
        return ok(`Edited ${relative} at line ${line}.`);
      });
    },
  };
}

function createGlobTool(inWorkspace: InWorkspace): AnyTool {
  return {
    name: 'glob',
    ...WORKSPACE_TOOL,
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
}

function createListdirTool(inWorkspace: InWorkspace): AnyTool {
  return {
    name: 'listdir',
    ...WORKSPACE_TOOL,
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
