import { errorMessage } from '../errors.js';
import { fail, type ToolCallContext, type ToolResult, workspaceIdOf } from '../tools/types.js';
import { RefusedError } from '../workspace/pinned-dir.js';
import { fullMessage, splitWorkspacePath, type WorkspaceFiles } from '../workspace/workspace-files.js';
import type { Workspaces } from '../workspace/workspace.js';

export const PARTIAL = '(only part of the workspace was searched: it has too many files, or folders nested too deep; narrow the path)';
const EMPTY = 'The workspace is empty (no files yet). Create files with write or sandbox_exec.';
const PATH_HINT = 'Use a path relative to the workspace (the folder sandbox_exec sees as /workspace), e.g. "src/main.py".';

/** What every file tool declares: the workspace is shared with the container, so what is read there is outside content; nothing leaves the machine. */
export const WORKSPACE_TOOL = { group: 'files', effects: [], external: true } as const;

/** One call's workspace and path: the open workspace, the path's names, and the path as the model should see it. */
export interface Target {
  files: WorkspaceFiles;
  names: string[];
  relative: string;
}

/** Opens the conversation's workspace for one call and runs `task` on the path; errors become the message the model can act on. */
export type InWorkspace = (ctx: ToolCallContext, requested: string, verb: string, create: boolean, task: (target: Target) => Promise<ToolResult>) => Promise<ToolResult>;

/** The file tools' way into a workspace: the path checked, the workspace opened (or made), closed after the call. */
export function workspaceRunner(workspaces: Workspaces): InWorkspace {
  return async (ctx, requested, verb, create, task) => {
    const split = splitWorkspacePath(requested);
    if (!split.success) return fail(`Refused: ${split.error}. ${PATH_HINT}`);
    let exists: boolean;
    try {
      exists = workspaces.exists(workspaceIdOf(ctx));
    } catch (error) {
      return fail(`Refused: ${errorMessage(error)}.`);
    }
    if (!exists && !create) return fail(EMPTY);
    const opened = await workspaces.open(workspaceIdOf(ctx), { create });
    if (!opened.success) return fail(`The workspace is not available: ${opened.error}.`);
    const files = opened.value;
    try {
      return await task({ files, names: split.value, relative: split.value.length === 0 ? '.' : split.value.join('/') });
    } catch (error) {
      return fail(await describeFsError(error, requested, verb, files));
    } finally {
      await files.close();
    }
  };
}

/** What the model reads when a file operation fails: what happened and what to do next. */
async function describeFsError(error: unknown, requested: string, verb: string, files: WorkspaceFiles): Promise<string> {
  if (error instanceof RefusedError) return describeRefusal(error, requested, verb);
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

function describeRefusal(error: RefusedError, requested: string, verb: string): string {
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
