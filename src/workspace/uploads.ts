import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { stripInvisible } from '../lib/invisible.js';
import type { Result } from '../lib/result.js';
import { PinnedDir, RefusedError, using } from './pinned-dir.js';
import { fullMessage, WorkspaceFiles } from './workspace-files.js';
import type { Workspaces } from './workspace.js';

export const UPLOADS = 'uploads';
const NAME_ATTEMPTS = 5;

/**
 * Opens a conversation's workspace from outside the sandbox's tools (files that come with a message, e-mail
 * attachments): through `workspaces` when the sandbox runs (mounted, size-limited, files handed to its
 * user), else the plain folder `workspaceDir` (no container exists then). Contract: never throws.
 */
export async function openWorkspace(workspaces: Workspaces | undefined, conversationId: string, workspaceDir: string, options: { create: boolean }): Promise<Result<WorkspaceFiles>> {
  try {
    if (workspaces) {
      if (!options.create && !workspaces.exists(conversationId)) return { success: false, error: 'this conversation has no workspace files yet' };
      return await workspaces.open(conversationId, options);
    }
    if (options.create) await mkdir(workspaceDir, { recursive: true });
    else if (!existsSync(workspaceDir)) return { success: false, error: 'this conversation has no workspace files yet' };
    return { success: true, value: new WorkspaceFiles(await PinnedDir.openTrusted(workspaceDir), {}, undefined) };
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
}

/**
 * Stores one file in `uploads/` under a new name (`<stamp>-<name>`) and returns that name. `uploads` is made
 * a real folder first: whatever the container put there instead (a link to a host folder, a file, a FIFO)
 * is renamed aside to `uploads.moved-<stamp>`, never followed. The file is created with O_EXCL, so a FIFO or
 * link planted at the expected name only makes it pick another name. Throws ENOSPC when the workspace is full.
 */
export async function storeUpload(files: WorkspaceFiles, name: string, data: Buffer): Promise<string> {
  const root = files.root;
  let uploads: PinnedDir | undefined;
  for (let attempt = 0; !uploads; attempt += 1) {
    try {
      uploads = (await root.openOrMakeDir(UPLOADS, files.ownership)).dir;
    } catch (error) {
      if (!(error instanceof RefusedError) || attempt >= 2) throw error;
      await root.renameTo(UPLOADS, root, `${UPLOADS}.moved-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`);
    }
  }
  return using(uploads, async (dir) => {
    for (let attempt = 0; ; attempt += 1) {
      const stored = `${Date.now().toString(36)}${attempt === 0 ? '' : randomBytes(3).toString('hex')}-${name}`;
      try {
        await dir.createFile(stored, data, files.ownership);
        return stored;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt + 1 >= NAME_ATTEMPTS) throw error;
      }
    }
  });
}

/**
 * Stores one file that came from outside the sandbox (a chat's upload, a mail's attachment) in the conversation's
 * `uploads/`; its name there, or why it could not be (the workspace is full: what fills it). `onError` hears a
 * failure other than a full disk. Contract: never throws.
 */
export async function saveUpload(
  input: { dataDir: string; conversationId: string; workspaces?: Workspaces | undefined; onError?: (error: unknown) => void },
  name: string,
  data: Buffer,
): Promise<Result<string>> {
  const opened = await openWorkspace(input.workspaces, input.conversationId, path.join(input.dataDir, 'workspaces', input.conversationId), { create: true });
  if (!opened.success) return { success: false, error: `the workspace is not available (${opened.error.slice(0, 200)})` };
  const files = opened.value;
  try {
    return { success: true, value: await storeUpload(files, name, data) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      const usage = await files.usage().catch(() => undefined);
      return { success: false, error: usage ? fullMessage(usage) : 'the disk is full' };
    }
    input.onError?.(error);
    return { success: false, error: `it could not be stored (${errorMessage(error).slice(0, 200)})` };
  } finally {
    await files.close();
  }
}

/** A file name someone else chose, made safe to store: no folders, no control or reserved characters, no leading dot. */
export function safeFileName(name: string): string {
  const base = stripInvisible(name.split(/[\\/]/).pop() ?? '');
  const cleaned = base.replace(/[\u0000-\u001f<>:"|?*]/g, '_').replace(/^\.+/, '').trim().slice(-120);
  return cleaned === '' ? 'file' : cleaned;
}
