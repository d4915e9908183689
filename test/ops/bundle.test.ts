// The built command line (`npm run build` first): what V8 keeps of it. V8 holds each module's source text for the
// process's life, at one byte a character only when every character is Latin-1; scripts/bundle.mjs writes what
// esbuild leaves unescaped (comments, regular expression literals) as \u escapes so the daemon's chunks stay ASCII.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve('dist');

describe('the bundles', () => {
  it('are ASCII, so V8 keeps their source at one byte a character', () => {
    const chunks = ['bundle', 'bundle-start'].flatMap((folder) => readdirSync(path.join(DIST, folder)).map((name) => path.join(DIST, folder, name)));
    expect(chunks.length).toBeGreaterThan(20);
    const wide = chunks.filter((file) => /[^\x00-\x7f]/.test(readFileSync(file, 'utf8'))).map((file) => path.relative(DIST, file));
    expect(wide).toEqual([]);
  });
});
