// The fence table (src/fences.yaml) against the import graph: which unit (folder, or file directly in src/) each file
// belongs to, which imports between units the table allows, and what in the table itself is wrong or unneeded.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type { ImportGraph } from './import-graph.js';

export const KINDS = ['leaf', 'contract', 'part', 'root'] as const;
export type Kind = (typeof KINDS)[number];

const UNIT_NAME = /^(?:[a-z0-9-]+\/)+$|^[a-z0-9-]+\.ts$/;

const entrySchema = z.strictObject({
  kind: z.enum(KINDS),
  about: z.string().min(1),
  uses: z.array(z.string()).default([]),
  types: z.array(z.string()).default([]),
});

export interface Unit {
  name: string;
  kind: Kind;
  about: string;
  uses: readonly string[];
  types: readonly string[];
}

export interface Fences {
  units: ReadonlyMap<string, Unit>;
  /** The unit a file of src/ belongs to: its own entry (`daemon.ts`), else its deepest declared folder. */
  unitOf(file: string): string | undefined;
}

/** Reads the table; a malformed one throws with the entry and the reason. */
export function readFences(tablePath: string): Fences {
  const raw: unknown = parse(readFileSync(tablePath, 'utf8'));
  const table = z.record(z.string().regex(UNIT_NAME, 'a folder ends with "/", a file is a .ts file directly in src/'), entrySchema).parse(raw);
  const units = new Map<string, Unit>(Object.entries(table).map(([name, entry]) => [name, { name, ...entry }]));
  const folders = [...units.keys()].filter((name) => name.endsWith('/')).sort((a, b) => b.length - a.length);
  return {
    units,
    unitOf: (file) => (units.has(file) ? file : folders.find((folder) => file.startsWith(folder))),
  };
}

/** What is wrong with the table itself: src/'s entries it misses or names wrongly, declarations it cannot have. */
export function tableProblems(fences: Fences, srcDir: string): string[] {
  const problems: string[] = [];
  const present = readdirSync(srcDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
  for (const name of present) if (!fences.units.has(name)) problems.push(`src/${name} has no entry: add it (kind, about, uses) to src/fences.yaml`);
  for (const unit of fences.units.values()) {
    if (!existsSync(path.join(srcDir, unit.name))) problems.push(`${unit.name} is in src/fences.yaml but not in src/`);
    for (const name of [...unit.uses, ...unit.types]) {
      if (!fences.units.has(name)) problems.push(`${unit.name} declares ${name}, which has no entry`);
      else if (isOpen(fences.units.get(name))) problems.push(`${unit.name} declares ${name}, which is open to all (a ${fences.units.get(name)?.kind}): drop it`);
    }
    for (const name of unit.uses) if (unit.types.includes(name)) problems.push(`${unit.name} declares ${name} under both uses and types: keep it under uses`);
    if ([...unit.uses, ...unit.types].includes(unit.name)) problems.push(`${unit.name} declares itself`);
    if ((unit.kind === 'leaf' || unit.kind === 'contract') && unit.uses.length + unit.types.length > 0) {
      problems.push(`${unit.name} is a ${unit.kind}: it imports only ${unit.kind === 'leaf' ? 'leaves' : 'leaves and contracts'} and declares nothing`);
    }
  }
  return problems;
}

const isOpen = (unit: Unit | undefined): boolean => unit?.kind === 'leaf' || unit?.kind === 'contract';

/** Why the table refuses the edge from `file` to `target`, or undefined when it allows it. */
function refusal(fences: Fences, file: string, target: string, carriesCode: boolean): string | undefined {
  const from = fences.units.get(fences.unitOf(file) ?? '');
  const to = fences.units.get(fences.unitOf(target) ?? '');
  if (!from || !to) return `${!from ? file : target} belongs to no unit of src/fences.yaml`;
  if (from === to) return undefined;
  if (from.kind === 'leaf') return to.kind === 'leaf' ? undefined : `${from.name} is a leaf: it imports only leaves`;
  if (from.kind === 'contract') return isOpen(to) ? undefined : `${from.name} is a contract: it imports only leaves and contracts`;
  if (isOpen(to) || from.uses.includes(to.name)) return undefined;
  if (from.types.includes(to.name)) return carriesCode ? `${from.name} declares only ${to.name}'s types, and this import loads its code (use \`import type\`, or get it from the root)` : undefined;
  return `${from.name} does not declare ${to.name} (add it to ${from.name}'s uses or types in src/fences.yaml, or get it from the root)`;
}

/** Every import the table does not allow, as "a → b: why". */
export function undeclaredEdges(graph: ImportGraph, fences: Fences): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph.edges) {
    for (const target of targets) {
      const why = refusal(fences, file, target, graph.valueEdges.get(file)?.has(target) === true);
      if (why) found.push(`${file} → ${target}: ${why}`);
    }
  }
  return found;
}

/** Declarations no import needs (the table says exactly what each unit imports): drop them, or move uses to types. */
export function unneededDeclarations(graph: ImportGraph, fences: Fences): string[] {
  const used = new Map<string, { any: Set<string>; code: Set<string> }>();
  for (const [file, targets] of graph.edges) {
    const from = fences.unitOf(file);
    if (!from) continue;
    const seen = used.get(from) ?? { any: new Set<string>(), code: new Set<string>() };
    used.set(from, seen);
    for (const target of targets) {
      const to = fences.unitOf(target);
      if (!to || to === from) continue;
      seen.any.add(to);
      if (graph.valueEdges.get(file)?.has(target)) seen.code.add(to);
    }
  }
  const found: string[] = [];
  for (const unit of fences.units.values()) {
    const seen = used.get(unit.name);
    for (const name of unit.uses) {
      if (!seen?.any.has(name)) found.push(`${unit.name} declares ${name} under uses, and imports nothing of it`);
      else if (!seen.code.has(name)) found.push(`${unit.name} imports only ${name}'s types: move it from uses to types`);
    }
    for (const name of unit.types) if (!seen?.any.has(name)) found.push(`${unit.name} declares ${name} under types, and imports nothing of it`);
  }
  return found;
}

/** The graph of units: an edge where any file of one imports any file of another. */
export function unitGraph(graph: ImportGraph, fences: Fences): ImportGraph {
  const edges = new Map<string, Set<string>>([...fences.units.keys()].map((name) => [name, new Set<string>()]));
  const valueEdges = new Map<string, Set<string>>([...fences.units.keys()].map((name) => [name, new Set<string>()]));
  for (const [file, targets] of graph.edges) {
    const from = fences.unitOf(file);
    if (!from) continue;
    for (const target of targets) {
      const to = fences.unitOf(target);
      if (!to || to === from) continue;
      edges.get(from)?.add(to);
      if (graph.valueEdges.get(file)?.has(target)) valueEdges.get(from)?.add(to);
    }
  }
  return { files: [...fences.units.keys()], edges, valueEdges };
}

/** The graph the table declares (uses and types), for its own cycles. */
export function declaredGraph(fences: Fences): ImportGraph {
  const edges = new Map([...fences.units.values()].map((unit) => [unit.name, new Set([...unit.uses, ...unit.types])]));
  return { files: [...fences.units.keys()], edges, valueEdges: edges };
}
