import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, open, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../errors.js';
import type { Owner } from './pinned-dir.js';

/** Runs a system command (mkfs, mount…); child processes load on the first use, no part of a daemon's start. */
async function run(file: string, args: readonly string[], options: { timeout: number }): Promise<{ stdout: string; stderr: string }> {
  const { execFile } = await import('node:child_process');
  return promisify(execFile)(file, [...args], { ...options, encoding: 'utf8' });
}
const MIB = 1024 * 1024;
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * A workspace's size limit is its own filesystem: an ext4 image file (sparse: it takes on disk only what is
 * written) loop-mounted at the workspace folder with nodev,nosuid. Writes past the limit fail with ENOSPC,
 * from the container and from the daemon alike, and a hard link to a host file cannot exist inside it (links
 * never cross filesystems). The image survives restarts; the mount is made again on first use after a boot.
 * This needs root (mount, loop devices), as the Docker engine that bind-mounts the folder does.
 */
export type VolumeSupport = { enforced: true } | { enforced: false; reason: string };

/** The image size that leaves about `limitMb` free after ext4's own metadata (journal, inode tables). */
export function imageBytes(limitMb: number): number {
  return (limitMb + Math.ceil(limitMb * 0.03) + 8) * MIB;
}

/** Whether loop-mounted images work here: root, loop devices, mkfs.ext4, and a real mount of a small image. */
export async function probeVolumes(scratchDir: string): Promise<VolumeSupport> {
  if (process.platform !== 'linux') return { enforced: false, reason: 'loop-mounted workspaces need Linux' };
  if (process.getuid?.() !== 0) return { enforced: false, reason: 'the daemon does not run as root, and mounting a size-limited workspace needs root' };
  if (!existsSync('/dev/loop-control')) return { enforced: false, reason: 'this machine has no loop devices (/dev/loop-control is missing)' };
  const image = path.join(scratchDir, `probe-${process.pid}.img`);
  const mountPoint = path.join(scratchDir, `probe-${process.pid}`);
  try {
    await mkdir(mountPoint, { recursive: true });
    await createImage(image, 8, undefined);
    await mountImage(image, mountPoint);
    await unmount(mountPoint);
    return { enforced: true };
  } catch (error) {
    return { enforced: false, reason: `a test image could not be made and mounted (${errorMessage(error).split('\n')[0] ?? ''})` };
  } finally {
    await rm(image, { force: true }).catch(() => undefined);
    await rmdir(mountPoint).catch(() => undefined);
  }
}

/** Makes an empty ext4 image of `imageBytes(limitMb)` whose root folder belongs to `owner`. */
export async function createImage(image: string, limitMb: number, owner: Owner | undefined): Promise<void> {
  // O_EXCL: never reuse (and so never reformat) an image that exists.
  const handle = await open(image, 'wx', 0o600);
  try {
    await handle.truncate(imageBytes(limitMb));
  } finally {
    await handle.close();
  }
  const extended = ['nodiscard', ...(owner ? [`root_owner=${owner.uid}:${owner.gid}`] : [])].join(',');
  try {
    // -m 0: no blocks reserved for root (the sandbox user gets all of it); a small journal keeps small images usable.
    await run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=4', '-E', extended, '-L', 'familiar-ws', image], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    await rm(image, { force: true });
    throw commandError('mkfs.ext4', error);
  }
}

/**
 * Mounts `image` at `mountPoint`. `-o loop` makes util-linux reuse the loop device already attached to
 * this file (a container can keep the filesystem alive after the host's mount is gone), so one image is
 * never two filesystems at once. `discard` gives freed blocks back to the host's disk.
 */
export async function mountImage(image: string, mountPoint: string): Promise<void> {
  try {
    await run('mount', ['-t', 'ext4', '-o', 'loop,nodev,nosuid,discard', image, mountPoint], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    throw commandError('mount', error);
  }
  try {
    // mkfs puts lost+found in every new filesystem; the workspace should look empty.
    await rmdir(path.join(mountPoint, 'lost+found'));
  } catch {
    // Gone already, or not empty after a repair: keep it.
  }
}

/** Moves a mount to another folder: bind it there (flags such as nodev are carried over), then unmount the old place. */
export async function moveMount(from: string, to: string): Promise<void> {
  try {
    await run('mount', ['--bind', from, to], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    throw commandError('mount --bind', error);
  }
  await unmount(from);
}

/** Unmounts `mountPoint`; a container's copy of the mount keeps the filesystem (and its loop device) alive. */
export async function unmount(mountPoint: string): Promise<void> {
  try {
    await run('umount', [mountPoint], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    throw commandError('umount', error);
  }
}

/**
 * Grows an unmounted image's filesystem to `imageBytes(limitMb)` when the limit was raised (never shrinks
 * it): check it (resize2fs insists), then resize offline. Online resizing is not used: it needs rights a
 * containerised host may not grant, and every workspace is mounted afresh after a restart anyway.
 */
export async function growImage(image: string, limitMb: number): Promise<boolean> {
  const wanted = imageBytes(limitMb);
  if ((await stat(image)).size >= wanted) return false;
  try {
    await run('e2fsck', ['-f', '-y', image], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    // Exit code 1: errors were found and corrected, which is fine to go on with.
    if ((error as { code?: unknown }).code !== 1) throw commandError('e2fsck', error);
  }
  const handle = await open(image, 'r+');
  try {
    await handle.truncate(wanted);
  } finally {
    await handle.close();
  }
  try {
    await run('resize2fs', [image], { timeout: COMMAND_TIMEOUT_MS });
  } catch (error) {
    throw commandError('resize2fs', error);
  }
  return true;
}

/** True when `dir` is the root of a filesystem other than its parent's (a mount point). */
export function isMountPoint(dir: string): boolean {
  try {
    return statSync(dir).dev !== statSync(path.dirname(dir)).dev;
  } catch {
    return false;
  }
}

/** Mount points at or below `dir`, deepest first, from /proc/self/mountinfo. */
export function mountsUnder(dir: string): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points = text
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((field): field is string => field !== undefined)
    // mountinfo escapes space, tab, newline and backslash as \ooo.
    .map((field) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => point === dir || point.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

function commandError(command: string, error: unknown): Error {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? `${command} is not installed` : stderr || errorMessage(error);
  return new Error(`${command} failed: ${reason}`, { cause: error });
}
