// The import graph of src/: files as nodes, every import (type imports and dynamic imports included) as an edge.
// Read with TypeScript's own pre-processor (the compiler's import scanner), not with regular expressions; which edges
// carry code (not only types) is read from the syntax tree.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Files relative to src/, with forward slashes, e.g. `registry/registry.ts`. */
  files: string[];
  edges: Map<string, Set<string>>;
  /** The edges that carry code: an import or export not marked `type`, or an `await import()`. */
  valueEdges: Map<string, Set<string>>;
}

function walk(dir: string, root: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path.relative(root, full).split(path.sep).join('/'));
  }
}

export function readImportGraph(srcDir: string): ImportGraph {
  const files: string[] = [];
  walk(srcDir, srcDir, files);
  files.sort();
  const known = new Set(files);
  const edges = new Map<string, Set<string>>();
  const valueEdges = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(path.join(srcDir, file), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const resolve = (specifier: string): string | undefined => {
      if (!specifier.startsWith('.')) return undefined;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
      return known.has(resolved) ? resolved : undefined;
    };
    const targets = new Set<string>();
    for (const imported of info.importedFiles) {
      const resolved = resolve(imported.fileName);
      if (resolved) targets.add(resolved);
    }
    edges.set(file, targets);
    const values = new Set<string>();
    for (const specifier of valueSpecifiers(ts.createSourceFile(file, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }))) {
      const resolved = resolve(specifier);
      if (resolved) values.add(resolved);
    }
    valueEdges.set(file, values);
  }
  return { files, edges, valueEdges };
}

/**
 * The module specifiers a file loads at run time: every import and re-export but `import type` and `export type`,
 * and every `import()` call. (Under `verbatimModuleSyntax`, `import { type A }` still loads its module.)
 */
function valueSpecifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.importClause?.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Strongly connected components with more than one file (Tarjan's algorithm). */
export function cycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.files) if (!indices.has(file)) visit(file);
  return found;
}
