// The sizes of src/: lines per file and per function, read with TypeScript's parser (not by counting braces), so
// that a template literal, a comment or a regular expression with a brace in it cannot move a function's end.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Sized {
  /** The file relative to src/, with forward slashes, e.g. `sandbox/file-tools.ts`. */
  file: string;
  /** For a function: its name as `createFileTools`, `Class.method` or `outer > execute`; `(anonymous)` when it has none. */
  name: string;
  lines: number;
}

function walk(dir: string, root: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, root, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path.relative(root, full).split(path.sep).join('/'));
  }
}

/** Every .ts file under `srcDir`, relative to it, sorted. */
export function sourceFiles(srcDir: string): string[] {
  const files: string[] = [];
  walk(srcDir, srcDir, files);
  return files.sort();
}

/** A file's lines as an editor numbers them (a final newline does not start another line). */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function propertyName(name: ts.PropertyName | ts.BindingName): string {
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return '(computed)';
}

/** What a reader would call the function: its own name, else the name it is given (a variable, a property, an argument's callee). */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return propertyName(node.name);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return propertyName(parent.name);
  if (ts.isExportAssignment(parent)) return 'default';
  if (ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(…)`;
  return '(anonymous)';
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)
    || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);
}

/** Every function of one file's text with its length in lines (its first line to its last, comments before it not counted). */
export function functionSizes(file: string, text: string): Sized[] {
  const source = ts.createSourceFile(file, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, true);
  const found: Sized[] = [];
  const visit = (node: ts.Node, outer: string[], className: string | undefined): void => {
    let names = outer;
    let ownClass = className;
    if (ts.isClassLike(node)) ownClass = node.name?.text ?? '(class)';
    if (isFunction(node) && node.body) {
      const own = functionName(node);
      const name = ts.isClassLike(node.parent) && ownClass ? `${ownClass}.${own}` : own;
      names = [...outer, name];
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: names.join(' > '), lines: last - first + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, names, ownClass));
  };
  visit(source, [], undefined);
  return found;
}

/** The files of `srcDir` over `limit` lines. */
export function longFiles(srcDir: string, limit: number): Sized[] {
  return sourceFiles(srcDir)
    .map((file) => ({ file, name: file, lines: lineCount(readFileSync(path.join(srcDir, file), 'utf8')) }))
    .filter((sized) => sized.lines > limit);
}

/** The functions of `srcDir` over `limit` lines, longest first. */
export function longFunctions(srcDir: string, limit: number): Sized[] {
  return sourceFiles(srcDir)
    .flatMap((file) => functionSizes(file, readFileSync(path.join(srcDir, file), 'utf8')))
    .filter((sized) => sized.lines > limit)
    .sort((a, b) => b.lines - a.lines);
}

export interface Limits {
  fileLines: number;
  functionLines: number;
}

/** A file or a function allowed over the limit; `name` is the file again for a file, else the function's name. */
export interface SizeException {
  file: string;
  name: string;
  reason: string;
}

/**
 * Every file and function of `srcDir` over the limits that no exception names, and every exception nothing is over
 * the limit for any more (so the list only ever shrinks), one sentence each.
 */
export function sizeProblems(srcDir: string, limits: Limits, exceptions: readonly SizeException[]): string[] {
  const excepted = (sized: Sized) => exceptions.some((exception) => exception.file === sized.file && exception.name === sized.name);
  const files = longFiles(srcDir, limits.fileLines);
  const functions = longFunctions(srcDir, limits.functionLines);
  const problems = [
    ...files.filter((sized) => !excepted(sized)).map((sized) => `src/${sized.file} has ${sized.lines} lines (at most ${limits.fileLines}): split it along what it does`),
    ...functions.filter((sized) => !excepted(sized)).map((sized) => `${sized.name} in src/${sized.file} has ${sized.lines} lines (at most ${limits.functionLines}): split it into named steps`),
  ];
  for (const exception of exceptions) {
    if (![...files, ...functions].some((sized) => sized.file === exception.file && sized.name === exception.name)) {
      problems.push(`the exception for ${exception.name} in src/${exception.file} is no longer needed: remove it from the list`);
    }
  }
  return problems;
}
