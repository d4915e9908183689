// Writes docs/ARCHITECTURE.md's picture and list of parts from the fence table (src/fences.yaml), between the page's
// `fences:begin` and `fences:end` markers; the rest of the page is prose kept by hand.
//   npm run architecture              rewrite the section
//   npm run architecture -- --check   exit 1 when the committed page differs (test/architecture/imports.test.ts runs it)
// Options --table and --page point at other files (the test's copies).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEGIN = '<!-- fences:begin: made by `npm run architecture` from src/fences.yaml; edit the table, not this -->';
const END = '<!-- fences:end -->';
const WIDTH = 118;
const GROUPS = [
  { kind: 'root', label: 'root' },
  { kind: 'part', label: 'parts' },
  { kind: 'contract', label: 'contracts' },
  { kind: 'leaf', label: 'leaves' },
];

const { values } = parseArgs({ options: { check: { type: 'boolean' }, table: { type: 'string' }, page: { type: 'string' } } });
const tablePath = values.table ?? `${ROOT}src/fences.yaml`;
const pagePath = values.page ?? `${ROOT}docs/ARCHITECTURE.md`;

const units = Object.entries(parse(readFileSync(tablePath, 'utf8'))).map(([name, entry]) => ({
  name, kind: entry.kind, about: entry.about, uses: entry.uses ?? [], types: entry.types ?? [],
}));
const byName = new Map(units.map((unit) => [unit.name, unit]));
for (const unit of units) {
  if (!GROUPS.some((group) => group.kind === unit.kind)) fail(`${tablePath}: ${unit.name} has kind "${unit.kind}"; one of ${GROUPS.map((group) => group.kind).join(', ')}`);
}

/** How deep a unit stands: 0 when it declares nothing, else one more than the deepest it declares. */
const depths = new Map();
function depth(name, path = []) {
  if (depths.has(name)) return depths.get(name);
  if (path.includes(name)) fail(`${tablePath}: the declarations make a cycle: ${[...path, name].join(' → ')}`);
  const unit = byName.get(name);
  const below = [...(unit?.uses ?? []), ...(unit?.types ?? [])].map((next) => depth(next, [...path, name]));
  const value = below.length === 0 ? 0 : Math.max(...below) + 1;
  depths.set(name, value);
  return value;
}

/** Rows of names, each at most WIDTH wide after the label column. */
function wrap(names, indent) {
  const lines = [];
  let line = '';
  for (const name of names) {
    if (line !== '' && indent + line.length + 2 + name.length > WIDTH) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? name : `${line}  ${name}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function picture() {
  const column = Math.max(...GROUPS.map((group) => group.label.length)) + 2;
  const lines = [];
  for (const group of GROUPS) {
    const members = units.filter((unit) => unit.kind === group.kind);
    // Roots and parts by depth, deepest first: each row imports only from the rows below it.
    const rows = group.kind === 'root' || group.kind === 'part'
      ? [...new Set(members.map((unit) => depth(unit.name)))].sort((a, b) => b - a).map((level) => members.filter((unit) => depth(unit.name) === level))
      : [members];
    let label = group.label;
    for (const row of rows) {
      for (const text of wrap(row.map((unit) => unit.name), column)) {
        lines.push(`${label.padEnd(column)}${text}`);
        label = '';
      }
    }
  }
  return lines.join('\n');
}

const code = (name) => `\`${name}\``;

function imports(unit) {
  const parts = [];
  if (unit.uses.length > 0) parts.push(unit.uses.map(code).join(', '));
  if (unit.types.length > 0) parts.push(`types of ${unit.types.map(code).join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : '—';
}

function section() {
  const rows = GROUPS.flatMap((group) => units.filter((unit) => unit.kind === group.kind))
    .map((unit) => `| ${code(unit.name)} | ${unit.kind} | ${unit.about.replace(/\|/g, '\\|')} | ${imports(unit)} |`);
  return [
    BEGIN,
    '```text',
    picture(),
    '```',
    '',
    'Each row of roots and parts imports only from rows below it. Contracts and leaves are open to all: a contract',
    'imports only leaves and contracts, a leaf only leaves. Any other import is declared in the table below (types',
    'of: `import type` only — the code comes as an argument from the root).',
    '',
    '| Unit | Kind | What it is | Imports besides leaves and contracts |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const page = readFileSync(pagePath, 'utf8');
const start = page.indexOf(BEGIN);
const end = page.indexOf(END);
if (start < 0 || end < start) fail(`${pagePath} has no section between "${BEGIN}" and "${END}"`);
const next = `${page.slice(0, start)}${section()}${page.slice(end + END.length)}`;
if (values.check) {
  if (next !== page) fail(`${pagePath} is not what ${tablePath} makes: run \`npm run architecture\` and commit the page`);
} else if (next !== page) {
  writeFileSync(pagePath, next);
  process.stdout.write(`wrote ${pagePath}\n`);
}
