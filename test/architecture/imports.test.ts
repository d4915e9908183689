// The structure of src/ as rules on its import graph (type imports and dynamic imports included): no cycles, leaf
// helpers and the tool contract depend on nothing above them, parts reach each other only through what the
// composition root hands them. See docs/ARCHITECTURE.md.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, readImportGraph, type ImportGraph } from './import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const graph = readImportGraph(SRC);

const LEAF = (file: string) => file.startsWith('lib/') || ['errors.ts', 'log.ts'].includes(file);
/** The tool contract: the files directly in tools/ (its subfolders are tools, i.e. parts). */
const CONTRACT = (file: string) => /^tools\/[^/]+\.ts$/.test(file);
const inFolder = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

/** Every edge from a file matching `from` to a file matching `to`, as "a → b". */
function edges(g: ImportGraph, from: (file: string) => boolean, to: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const [file, targets] of g.edges) {
    if (!from(file)) continue;
    for (const target of targets) if (to(target)) found.push(`${file} → ${target}`);
  }
  return found;
}

describe('the import graph of src/', () => {
  it('reads the graph (the rules below would pass vacuously on an empty one)', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.get('daemon.ts')?.size).toBeGreaterThan(10);
  });

  it('has no cycle longer than one file', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('keeps leaf helpers leaves', () => {
    expect(edges(graph, LEAF, (target) => !LEAF(target))).toEqual([]);
  });

  it('keeps the tool contract free of every subsystem', () => {
    const allowed = (target: string) => LEAF(target) || CONTRACT(target) || target === 'config/schema.ts' || target.startsWith('config/');
    expect(edges(graph, CONTRACT, (target) => !allowed(target))).toEqual([]);
  });

  it('lets no part import the composition root (only the command line builds the daemon)', () => {
    expect(edges(graph, (file) => !file.startsWith('cli/'), (target) => target === 'daemon.ts')).toEqual([]);
  });

  it('keeps the scheduler and skills away from the agent and the channels (they get a function to start turns)', () => {
    const startsTurns = (file: string) => inFolder('scheduler')(file) || inFolder('skills')(file);
    expect(edges(graph, startsTurns, (target) => inFolder('agent')(target) || inFolder('channels')(target))).toEqual([]);
  });

  it('keeps the LLM client away from the tools', () => {
    expect(edges(graph, inFolder('llm'), (target) => inFolder('tools')(target))).toEqual([]);
  });

  it('lets only the root, the turns and the command line reach the agent loop and the channels', () => {
    const may = (file: string) => file === 'daemon.ts' || inFolder('turns')(file) || inFolder('cli')(file) || inFolder('agent')(file) || inFolder('channels')(file);
    expect(edges(graph, (file) => !may(file), (target) => inFolder('agent')(target) || inFolder('channels')(target))).toEqual([]);
  });

  it('keeps memory, sandbox, skills and email out of each other', () => {
    const folders = ['memory', 'sandbox', 'skills', 'tools/email'];
    const found = folders.flatMap((from) => edges(graph, inFolder(from), (target) => folders.some((to) => to !== from && inFolder(to)(target))));
    expect(found).toEqual([]);
  });

  it('keeps voice a part of its own: the channels get its service from the root, and it knows no channel', () => {
    expect(edges(graph, inFolder('channels'), inFolder('voice'))).toEqual([]);
    const reachesOut = (target: string) => ['channels', 'agent', 'turns', 'memory', 'sandbox', 'skills', 'scheduler', 'workspace'].some((folder) => inFolder(folder)(target));
    expect(edges(graph, inFolder('voice'), reachesOut)).toEqual([]);
  });

  it('keeps the custom tools part to the tool contract (it is fenced like any part), and the SDK to the contract', () => {
    const allowed = (target: string) => LEAF(target) || CONTRACT(target) || target.startsWith('config/') || target === 'part.ts' || inFolder('custom-tools')(target);
    expect(edges(graph, inFolder('custom-tools'), (target) => !allowed(target))).toEqual([]);
    // What tool modules import as 'familiar': the contract's types and nothing of the daemon's parts.
    expect(edges(graph, (file) => file === 'sdk.ts', (target) => !CONTRACT(target))).toEqual([]);
    expect(edges(graph, (file) => file !== 'daemon.ts' && !inFolder('cli')(file) && !inFolder('custom-tools')(file), inFolder('custom-tools'))).toEqual([]);
  });

  it('keeps the command line from being a circle through its entry', () => {
    expect(edges(graph, inFolder('cli'), (target) => target === 'cli/run.ts' || target === 'main.ts')).toEqual([]);
  });

  it('finds a forbidden edge when one is there (the checks can fail)', () => {
    const planted: ImportGraph = { files: [...graph.files], edges: new Map(graph.edges) };
    planted.edges.set('scheduler/runner.ts', new Set([...(graph.edges.get('scheduler/runner.ts') ?? []), 'agent/agent.ts']));
    planted.edges.set('agent/agent.ts', new Set([...(graph.edges.get('agent/agent.ts') ?? []), 'daemon.ts']));
    expect(edges(planted, inFolder('scheduler'), inFolder('agent'))).toContain('scheduler/runner.ts → agent/agent.ts');
    expect(cycles(planted).length).toBeGreaterThan(0);
    expect(path.basename(SRC)).toBe('src');
  });
});
