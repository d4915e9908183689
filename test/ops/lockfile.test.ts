import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/folders.js';
import { tempDir } from '../helpers/app.js';

// CI systems and the Dockerfile install with `npm ci`, which refuses a lock that does not match package.json (it
// once lacked the optional platform packages of a dev dependency). A dry run checks that in about a second, with no
// download; .ci/run then installs the clean clone with `npm ci` for real.
describe('package-lock.json', () => {
  it('is accepted by npm ci on a copy with nothing installed', async () => {
    const dir = tempDir('familiar-lock-');
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(PACKAGE_ROOT, file), path.join(dir, file));
    const run = promisify(execFile);
    const result = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' })
      .then(({ stdout }) => ({ code: 0, output: stdout }), (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` }));
    expect(result.output).not.toContain('Missing:');
    expect(result.code, result.output).toBe(0);
  }, 60_000);
});
