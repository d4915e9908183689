// Size-limited workspaces (loop-mounted ext4 images) for tests: whether this machine can make them, and a
// `describeDocker` variant that also needs them — skipped with the reason outside CI, a failure with CI=true.
// They need root and loop devices (/dev/loop-control); e2fsprogs and util-linux are in every Debian.
import { describe, it } from 'vitest';
import { probeVolumes, type VolumeSupport } from '../../src/workspace/volumes.js';
import { tempDir } from './app.js';
import { describeDocker } from './docker.js';

/** Checked once per test file (top-level await), by making and mounting a small image. */
export const volumes: VolumeSupport = await probeVolumes(tempDir('familiar-volumes-'));

let warned = false;

export function describeDockerVolumes(name: string, fn: () => void): void {
  if (!volumes.enforced && process.env.CI === 'true') {
    const reason = volumes.reason;
    describe(name, () => {
      it('needs size-limited workspaces (root and loop devices)', () => {
        throw new Error(`size-limited workspaces are required in CI but unavailable: ${reason}`);
      });
    });
    return;
  }
  if (!volumes.enforced) {
    if (!warned) console.warn(`[size-limit tests skipped] ${volumes.reason}`);
    warned = true;
    describe.skip(name, fn);
    return;
  }
  describeDocker(name, fn);
}
