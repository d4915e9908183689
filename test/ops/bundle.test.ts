// The built command line (`npm run build` first): what the executable runs, and what V8 keeps of it. V8 holds each module's source text for the
// process's life, at one byte a character only when every character is Latin-1; scripts/bundle.mjs writes what
// esbuild leaves unescaped (comments, regular expression literals) as \u escapes so the daemon's chunks stay ASCII.
import { execFileSync } from 'node:child_process';
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
    const { requireFolded } = (await import(pathToFileURL(path.join(DIST, 'lib', 'folded-packages.js')).href)) as typeof import('../../src/lib/folded-packages.js');
    const { pino } = requireFolded('pino') as typeof import('pino');
    const lines: string[] = [];
    pino({ base: null }, { write: (line: string) => lines.push(line) }).info('hello');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 30, msg: 'hello' });
    expect(typeof (requireFolded('rotating-file-stream') as typeof import('rotating-file-stream')).createStream).toBe('function');
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.filter((file) => file.includes(`${path.sep}vendor${path.sep}`)).map((file) => path.basename(file)).sort()).toEqual(['pino.cjs', 'rotating-file-stream.cjs']);
  });

  it('carry pino and the log file\'s stream in themselves, compiled with the rest through the code cache', () => {
    for (const file of ['bundle/main.cjs', 'bundle-start/main.cjs']) {
      const text = readFileSync(path.join(DIST, file), 'latin1');
      expect(text).toContain('// node_modules/pino/pino.js');
      expect(text).toContain('// node_modules/rotating-file-stream/dist/cjs/index.js');
      expect(text).not.toMatch(/require\("(pino|rotating-file-stream)"\)|[^_]vendor\//);
    }
  });

  it('leave out what pino and the stream load but the daemon does not use, and both still work', () => {
    // A child: a log line through pino into a rotating file, rotated and compressed both ways (zlib, then a command).
    const script = `
      const fs = require('node:fs'); const path = require('node:path');
      const before = new Set(process.moduleLoadList);
      const { pino } = require(${JSON.stringify(path.join(DIST, 'vendor', 'pino.cjs'))});
      const { createStream } = require(${JSON.stringify(path.join(DIST, 'vendor', 'rotating-file-stream.cjs'))});
      const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'familiar-folded-'));
      const names = (base) => (time, index) => (time ? base + '.' + index + '.gz' : base);
      const gz = createStream(names('gz.log'), { path: dir, size: '1K', compress: 'gzip' });
      const sh = createStream(names('sh.log'), { path: dir, size: '1K', compress: (source, dest) => 'gzip -c < ' + source + ' > ' + dest });
      const log = pino({ base: null }, gz);
      log.info('x'.repeat(100));
      const loadedAtStart = process.moduleLoadList.filter((name) => !before.has(name)).map((name) => name.replace('NativeModule ', ''));
      let transport = '';
      try { pino.transport({ target: 'pino/file' }); } catch (error) { transport = error.message; }
      let rotations = 0;
      const done = () => { if (++rotations === 2) { process.stdout.write(JSON.stringify({ loadedAtStart, transport, files: fs.readdirSync(dir).sort(), gunzipped: require('node:zlib').gunzipSync(fs.readFileSync(path.join(dir, 'gz.log.1.gz'))).toString().length })); gz.end(); sh.end(); } };
      gz.on('rotated', done); sh.on('rotated', done);
      for (let i = 0; i < 12; i++) log.info('y'.repeat(100));
      sh.write('z'.repeat(2000));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { loadedAtStart: string[]; transport: string; files: string[]; gunzipped: number };
    expect(out.loadedAtStart.filter((name) => ['assert', 'zlib', 'child_process', 'dgram'].includes(name))).toEqual([]);
    expect(out.transport).toMatch(/transports are not part of Familiar/);
    expect(out.files.filter((name) => name.endsWith('.gz'))).toEqual(['gz.log.1.gz', 'sh.log.1.gz']);
    expect(out.gunzipped).toBeGreaterThan(1000);
  });

  it('take from the Node modules they load on first use only the functions the build passes on', () => {
    // scripts/bundle.mjs passes createGzip (zlib), exec (child_process) and assert itself: a package update that used
    // another would find it missing.
    const rfs = readFileSync(createRequire(import.meta.url).resolve('rotating-file-stream'), 'utf8');
    expect([...new Set([...rfs.matchAll(/\b(zlib_1|child_process_1)\.(\w+)/g)].map((match) => match[2]))].sort()).toEqual(['createGzip', 'exec']);
    const sonic = readFileSync(createRequire(createRequire(import.meta.url).resolve('pino')).resolve('sonic-boom'), 'utf8');
    expect([...sonic.matchAll(/\bassert\.(\w+)/g)]).toEqual([]);
  });
});
