// The structure of src/ as the fence table (src/fences.yaml) declares it, checked on the import graph (type imports
// and dynamic imports included): every import allowed, every declaration needed, no cycle of files or of folders,
// and docs/ARCHITECTURE.md's picture and list of parts as the table makes them. See docs/ARCHITECTURE.md.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { stringify, parse } from 'yaml';
import { declaredGraph, readFences, tableProblems, undeclaredEdges, unitGraph, unneededDeclarations } from './fences.js';
import { cycles, readImportGraph, type ImportGraph } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = path.join(ROOT, 'src');
const TABLE = path.join(SRC, 'fences.yaml');
const graph = readImportGraph(SRC);
const fences = readFences(TABLE);

// Not test/helpers/app.ts's tempDir: importing it would load the whole daemon into this test.
const tempDir = (): string => mkdtempSync(path.join(tmpdir(), 'familiar-fences-'));

/** The graph with more edges: `edges` maps a file to the files it also imports (`code`: loading them, else types only). */
function plant(edges: Record<string, string[]>, code = true): ImportGraph {
  const planted: ImportGraph = { files: [...graph.files], edges: new Map(graph.edges), valueEdges: new Map(graph.valueEdges) };
  for (const [file, targets] of Object.entries(edges)) {
    planted.edges.set(file, new Set([...(graph.edges.get(file) ?? []), ...targets]));
    if (code) planted.valueEdges.set(file, new Set([...(graph.valueEdges.get(file) ?? []), ...targets]));
  }
  return planted;
}

/** Runs the page script; `options` point it at copies. */
function pageScript(...options: string[]) {
  // A clean environment: this shell's NODE_EXTRA_CA_CERTS alone costs a Node process 36 ms.
  return spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'architecture-page.mjs'), ...options], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
}

describe('the import graph of src/ against the fence table', () => {
  it('reads the graph (the rules below would pass vacuously on an empty one)', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.get('daemon.ts')?.size).toBeGreaterThan(10);
    // The root's steps live in root/: together with daemon.ts they load most of the parts.
    const rootEdges = new Set([...graph.valueEdges].filter(([file]) => file === 'daemon.ts' || file.startsWith('root/')).flatMap(([, targets]) => [...targets]));
    expect(rootEdges.size).toBeGreaterThan(10);
    // `import type` is an edge, but not one that loads code.
    expect(graph.edges.get('agent/agent.ts')).toContain('agent/conversations.ts');
    expect(graph.valueEdges.get('agent/agent.ts')).not.toContain('agent/conversations.ts');
  });

  it('has an entry for every folder and file of src/, and none for what is not there', () => {
    expect(tableProblems(fences, SRC)).toEqual([]);
  });

  it('allows every import of src/', () => {
    expect(undeclaredEdges(graph, fences)).toEqual([]);
  });

  it('declares no import that src/ does not make', () => {
    expect(unneededDeclarations(graph, fences)).toEqual([]);
  });

  it('has no cycle of files', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle of folders', () => {
    expect(cycles(unitGraph(graph, fences))).toEqual([]);
  });

  it('declares no cycle (the picture stacks the folders in rows)', () => {
    expect(cycles(declaredGraph(fences))).toEqual([]);
  });

  it('keeps the command line from being a circle through its entry', () => {
    const found = [...graph.edges].filter(([file]) => file.startsWith('cli/')).flatMap(([file, targets]) => [...targets].filter((target) => target === 'cli/run.ts' || target === 'main.ts').map((target) => `${file} → ${target}`));
    expect(found).toEqual([]);
  });

  it('keeps the SDK (what tool modules import as `familiar`) to the tool contract', () => {
    expect([...(graph.edges.get('sdk.ts') ?? [])].filter((target) => fences.unitOf(target) !== 'tools/')).toEqual([]);
  });
});

describe('the checks can fail', () => {
  it('refuse an undeclared import, code where only types are declared, and a leaf reaching up', () => {
    const planted = plant({ 'scheduler/runner.ts': ['agent/agent.ts'], 'usage/part.ts': ['turns/turns.ts'], 'lib/clock.ts': ['config/schema.ts'] });
    const found = undeclaredEdges(planted, fences);
    expect(found).toContain('scheduler/runner.ts → agent/agent.ts: scheduler/ does not declare agent/ (add it to scheduler/\'s uses or types in src/fences.yaml, or get it from the root)');
    expect(found.some((edge) => edge.startsWith('usage/part.ts → turns/turns.ts: usage/ declares only turns/\'s types'))).toBe(true);
    expect(found).toContain('lib/clock.ts → config/schema.ts: lib/ is a leaf: it imports only leaves');
  });

  it('find a cycle of folders that is no cycle of files', () => {
    // agent/ already reaches nothing of turns/; turns/turns.ts imports agent/profiles.ts.
    const planted = plant({ 'agent/prompt.ts': ['turns/types.ts'] }, false);
    expect(cycles(planted)).toEqual([]);
    expect(cycles(unitGraph(planted, fences))).toEqual([['agent/', 'turns/']]);
  });

  it('find a cycle of files', () => {
    expect(cycles(plant({ 'lib/clock.ts': ['daemon.ts'] })).length).toBeGreaterThan(0);
  });

  it('name a folder with no entry, and a declaration nothing needs', () => {
    const dir = tempDir();
    const table = parse(readFileSync(TABLE, 'utf8')) as Record<string, Record<string, unknown>>;
    delete table['voice/'];
    table['http/'] = { ...table['http/'], types: ['llm/'] };
    writeFileSync(path.join(dir, 'fences.yaml'), stringify(table));
    const edited = readFences(path.join(dir, 'fences.yaml'));
    expect(tableProblems(edited, SRC)).toEqual(expect.arrayContaining(['src/voice/ has no entry: add it (kind, about, uses) to src/fences.yaml']));
    expect(unneededDeclarations(graph, edited)).toContain('http/ declares llm/ under types, and imports nothing of it');
  });
});

describe("docs/ARCHITECTURE.md's picture and list of parts", () => {
  it('are what the fence table makes', () => {
    const checked = pageScript('--check');
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });

  it('are refused when the table changed and the page did not', () => {
    const dir = tempDir();
    const page = path.join(dir, 'ARCHITECTURE.md');
    copyFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), page);
    const table = parse(readFileSync(TABLE, 'utf8')) as Record<string, Record<string, unknown>>;
    table['http/'] = { ...table['http/'], about: 'something else' };
    writeFileSync(path.join(dir, 'fences.yaml'), stringify(table));
    const checked = pageScript('--check', '--table', path.join(dir, 'fences.yaml'), '--page', page);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toContain('run `npm run architecture` and commit the page');
  });
});
