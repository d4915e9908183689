// The built command line (`npm run build` first): what the executable runs, and what V8 keeps of it. V8 holds each module's source text for the
// process's life, at one byte a character only when every character is Latin-1; scripts/bundle.mjs writes what
// esbuild leaves unescaped (comments, regular expression literals) as \u escapes so the daemon's chunks stay ASCII.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve('dist');

describe('the bundles', () => {
  it('are ASCII, so V8 keeps their source at one byte a character', () => {
    const chunks = ['bundle', 'bundle-start', 'vendor'].flatMap((folder) => readdirSync(path.join(DIST, folder)).map((name) => path.join(DIST, folder, name)));
    expect(chunks.map((file) => path.relative(DIST, file)).sort()).toEqual(['bundle-start/main.cjs', 'bundle/main.cjs', 'vendor/pino.cjs', 'vendor/rotating-file-stream.cjs']);
    const wide = chunks.filter((file) => /[^\x00-\x7f]/.test(readFileSync(file, 'utf8'))).map((file) => path.relative(DIST, file));
    expect(wide).toEqual([]);
  });

  it('are each one function that imports nothing itself: import() of a package goes through the executable', () => {
    // In code taken from a vm.Script's code cache, import() fails on Node 20 (src/lib/code-cache.ts).
    for (const file of ['bundle/main.cjs', 'bundle-start/main.cjs']) {
      const text = readFileSync(path.join(DIST, file), 'latin1');
      expect(text.startsWith('(function (exports, require, module, __filename, __dirname, __familiarImport) {')).toBe(true);
      expect(text.trimEnd().endsWith('})')).toBe(true);
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
      const imports: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) imports.push(node.getText(source).slice(0, 80));
        ts.forEachChild(node, visit);
      };
      visit(source);
      expect([file, imports]).toEqual([file, []]);
      expect(text).toContain('__familiarImport("dockerode")');
    }
  });

  it('give the daemon pino and the log file\'s stream each from one folded file, and they work', async () => {
    const { requireFolded } = (await import(pathToFileURL(path.join(DIST, 'lib', 'folded.js')).href)) as typeof import('../../src/lib/folded.js');
    const { pino } = requireFolded('pino') as typeof import('pino');
    const lines: string[] = [];
    pino({ base: null }, { write: (line: string) => lines.push(line) }).info('hello');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 30, msg: 'hello' });
    expect(typeof (requireFolded('rotating-file-stream') as typeof import('rotating-file-stream')).createStream).toBe('function');
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.filter((file) => file.includes(`${path.sep}vendor${path.sep}`)).map((file) => path.basename(file)).sort()).toEqual(['pino.cjs', 'rotating-file-stream.cjs']);
  });
});
