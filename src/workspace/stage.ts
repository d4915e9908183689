import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { PinnedDir, using } from './pinned-dir.js';
import { copyTree, removeTree } from './tree.js';
import type { Workspaces } from './workspace.js';

const SWAP_ATTEMPTS = 5;

/**
 * Copies a host folder the daemon trusts (a skill's `scripts/`) into the conversation's workspace as `name`,
 * replacing the previous copy; without `source`, only removes the previous copy. The copy is built in a
 * fresh hidden folder, then renamed into place, all through pinned folders: whatever the container does to
 * `name` meanwhile (a link to a host folder, a file, a new folder) is moved aside, never followed or
 * written through. Links in the source are left out. Throws when the copy cannot be made (the workspace
 * is full, or the container keeps putting something back at `name`).
 */
export async function stageFolder(workspaces: Workspaces, conversationId: string, source: string, name: string): Promise<void> {
  const opened = await workspaces.open(conversationId, { create: true });
  if (!opened.success) throw new Error(opened.error);
  const files = opened.value;
  const root = files.root;
  const suffix = randomBytes(4).toString('hex');
  const staging = `.familiar-staging-${suffix}`;
  const aside: string[] = [];
  try {
    if (existsSync(source)) {
      const { dir: target } = await root.openOrMakeDir(staging, files.ownership);
      try {
        // O_NOFOLLOW: a source folder that is itself a link is refused.
        await using(target, async () => using(await PinnedDir.openTrusted(source), (from) => copyTree(from, target, { ownership: files.ownership, links: 'skip', allowHardLinks: true })));
      } catch (error) {
        await removeTree(root, staging);
        throw error;
      }
    }
    for (let attempt = 0; ; attempt += 1) {
      if (await root.lstat(name)) {
        const old = `.familiar-old-${name}-${suffix}-${attempt}`;
        await root.renameTo(name, root, old);
        aside.push(old);
      }
      if (!existsSync(source)) break;
      try {
        // Fails (ENOTDIR, ENOTEMPTY) when something was put back at `name` since: move that aside too.
        await root.renameTo(staging, root, name);
        break;
      } catch (error) {
        if (attempt + 1 >= SWAP_ATTEMPTS) {
          await removeTree(root, staging);
          throw new Error(`${name}/ could not be put in place: the sandbox keeps changing it (${(error as Error).message})`, { cause: error });
        }
      }
    }
  } finally {
    // Best effort: what the container keeps filling may stay behind as a hidden folder.
    for (const old of aside) await removeTree(root, old).catch(() => false);
    await files.close();
  }
}
