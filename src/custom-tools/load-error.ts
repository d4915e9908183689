import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage } from '../errors.js';

/**
 * Why a module did not import, in terms of its file: the line of a syntax error or of the throw at load, a missing
 * import, without the daemon's internal query strings. Contract: never throws.
 */
export async function describeLoadError(error: unknown, file: string): Promise<string> {
  const message = clean(errorMessage(error));
  const name = error instanceof Error ? error.name : 'Error';
  if (error instanceof SyntaxError && /\.m?js$/.test(file)) {
    // V8 gives an ES module's syntax error no location; node --check does.
    const located = await syntaxLocation(file);
    return `syntax error${located ? ` at line ${located.line}` : ''}: ${message}${located?.code ? ` (${located.code.trim()})` : ''}`;
  }
  if (/Transform failed/.test(message)) return `does not compile: ${message.replace(/^Transform failed with \d+ errors?:\s*/, '').replace(`${file}:`, 'line ')}`;
  const line = lineIn(error, file);
  if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return `an import is missing: ${message}`;
  return `threw while loading${line ? ` (line ${line})` : ''}: ${name}: ${message}`;
}

/** The module's own line in a stack (`file:///…/x.mjs?familiar-tool=3:12:7`). */
function lineIn(error: unknown, file: string): string | undefined {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const url = pathToFileURL(file).href;
  for (const frame of stack.split('\n')) {
    const at = frame.indexOf(url);
    if (at < 0) continue;
    const match = /^(?:\?[^:\s]*)?:(\d+):\d+/.exec(frame.slice(at + url.length));
    if (match?.[1]) return match[1];
  }
  return undefined;
}

function clean(message: string): string {
  return message.replace(/\?familiar-tool=[^\s:'")]*/g, '');
}

/** `node --check` on the module's text as an ES module: the line and the code there. */
async function syntaxLocation(file: string): Promise<{ line: string; code?: string } | undefined> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '--check'], { stdio: ['pipe', 'ignore', 'pipe'], env: {}, cwd: path.dirname(file) });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', () => resolve(undefined));
    child.on('close', () => {
      const lines = stderr.split('\n');
      const line = /^\[stdin\]:(\d+)/.exec(lines[0] ?? '')?.[1];
      resolve(line ? { line, ...(lines[1] ? { code: lines[1] } : {}) } : undefined);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(source);
  });
}
