// Issue 25's sizes: no file of src/ over 450 lines and no function (declaration, method, arrow or function expression)
// over 80, read with TypeScript's parser (sizes.ts), but for the exceptions below, each with its reason.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { functionSizes, sizeProblems, type SizeException } from './sizes.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const LIMITS = { fileLines: 450, functionLines: 80 };

/** Kept over the limits on purpose. An exception nothing needs any more fails the test, so the list only shrinks. */
const EXCEPTIONS: readonly SizeException[] = [];

/** `count` lines of body, so that the function spans `count + 2` lines. */
const body = (count: number): string => Array.from({ length: count }, (_, index) => `  const v${index} = ${index};`).join('\n');

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'familiar-sizes-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('the sizes of src/', () => {
  it('has no file over 450 lines and no function over 80, but the exceptions named, each still needed', () => {
    expect(sizeProblems(SRC, LIMITS, EXCEPTIONS)).toEqual([]);
  });

  it('gives every exception its reason', () => {
    for (const exception of EXCEPTIONS) expect(exception.reason.trim(), `${exception.file} ${exception.name}`).not.toBe('');
  });

  it('reports a long file and a long function of each kind, by file and name', () => {
    const dir = folder({
      'long.ts': `${Array.from({ length: 451 }, (_, index) => `export const c${index} = ${index};`).join('\n')}\n`,
      'kinds/declared.ts': `export function declared(): void {\n${body(79)}\n}\nexport function fits(): void {\n${body(78)}\n}\n`,
      'kinds/arrow.ts': `export const arrow = (): void => {\n${body(79)}\n};\n`,
      'kinds/expression.ts': `export const expression = function (): void {\n${body(79)}\n};\n`,
      'kinds/class.ts': `export class Shape {\n  method(): void {\n${body(79)}\n  }\n}\n`,
      'kinds/nested.ts': `export function outer(): () => void {\n  return () => {\n${body(79)}\n  };\n}\n`,
    });
    expect(sizeProblems(dir, LIMITS, [])).toEqual([
      'src/long.ts has 451 lines (at most 450): split it along what it does',
      'outer in src/kinds/nested.ts has 83 lines (at most 80): split it into named steps',
      'arrow in src/kinds/arrow.ts has 81 lines (at most 80): split it into named steps',
      'Shape.method in src/kinds/class.ts has 81 lines (at most 80): split it into named steps',
      'declared in src/kinds/declared.ts has 81 lines (at most 80): split it into named steps',
      'expression in src/kinds/expression.ts has 81 lines (at most 80): split it into named steps',
      'outer > (anonymous) in src/kinds/nested.ts has 81 lines (at most 80): split it into named steps',
    ]);
  });

  it('lets a named exception through and reports one nothing needs any more', () => {
    const dir = folder({ 'one.ts': `export function long(): void {\n${body(79)}\n}\nexport function short(): void {}\n` });
    expect(sizeProblems(dir, LIMITS, [{ file: 'one.ts', name: 'long', reason: 'test' }])).toEqual([]);
    expect(sizeProblems(dir, LIMITS, [{ file: 'one.ts', name: 'long', reason: 'test' }, { file: 'one.ts', name: 'short', reason: 'test' }]))
      .toEqual(['the exception for short in src/one.ts is no longer needed: remove it from the list']);
  });

  it('ends a function where the parser does, not at a brace inside a string, template, comment or regular expression', () => {
    const text = [
      'export function tricky(): string {',
      "  const a = '}';",
      '  // }',
      '  const b = /}/.source;',
      '  const c = `${a}}${b}`;',
      '  return a + b + c;',
      '}',
      '',
    ].join('\n');
    expect(functionSizes('tricky.ts', text)).toEqual([{ file: 'tricky.ts', name: 'tricky', lines: 7 }]);
  });
});
