// A code cache is code the `familiar` executable runs (src/lib/code-cache.ts): it is read only from a folder of this
// user's, not a link, that no other account may write to. Otherwise none is read or written, and the run compiles.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheDir } from '../../src/lib/code-cache.js';
import { tempDir } from '../helpers/app.js';

function run(dir: string, cache: string) {
  const child = spawnSync(process.execPath, [path.resolve('dist/main.js'), 'tools', 'list'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, FAMILIAR_CODE_CACHE: cache }, encoding: 'utf8' });
  return { code: child.status, stdout: child.stdout };
}

describe('the code cache folder', () => {
  it('is none when others may write to it, or when it is a link', () => {
    const home = tempDir();
    const open = path.join(home, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(codeCacheDir({ FAMILIAR_CODE_CACHE: open })).toBeUndefined();
    const mine = path.join(home, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    symlinkSync(mine, path.join(home, 'link'));
    expect(codeCacheDir({ FAMILIAR_CODE_CACHE: path.join(home, 'link') })).toBeUndefined();
    expect(codeCacheDir({ FAMILIAR_CODE_CACHE: mine })).toBe(mine);
  });

  it.runIf(process.getuid?.() === 0)('is none when another account owns it', () => {
    const other = path.join(tempDir(), 'other');
    mkdirSync(other, { mode: 0o700 });
    chownSync(other, 65534, 65534);
    expect(codeCacheDir({ FAMILIAR_CODE_CACHE: other })).toBeUndefined();
  });

  it('planted where others may write, is neither taken nor replaced, and the command runs as without it', () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'config.yaml'), 'data_dir: ./data\nmemory_dir: ./memory\n');
    // The name a run would use, from a run with a private folder.
    const mine = path.join(dir, 'mine');
    const clean = run(dir, mine);
    const [name = ''] = readdirSync(mine);
    expect(name).toMatch(/^cli-tools-.*\.v8$/);
    const open = path.join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    // Not a cache V8 would take: were it read, the run would write a good one over it.
    const planted = Buffer.alloc(readFileSync(path.join(mine, name)).length, 1);
    writeFileSync(path.join(open, name), planted);
    expect(run(dir, open)).toEqual(clean);
    expect(readdirSync(open)).toEqual([name]);
    expect(readFileSync(path.join(open, name)).equals(planted)).toBe(true);
  });
});
