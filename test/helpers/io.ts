import { PassThrough, Writable } from 'node:stream';
import type { CommandIo } from '../../src/cli/context.js';

/** A CommandIo that records stdout and stderr, for running `runCli` in the test process. */
export function captureIo(): CommandIo & { out(): string; err(): string } {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (lines: string[]) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
  const stdin = new PassThrough();
  stdin.end();
  return { stdout: sink(out), stderr: sink(err), stdin, out: () => out.join(''), err: () => err.join('') };
}

/**
 * `familiar chat` driven from the test: a scripted stdin and a recorded stdout. `waitFor` resolves once a text (or a
 * pattern: with the text it matched) has appeared on stdout after `from`; `say` writes a line.
 */
export function scriptedTerminal() {
  const stdin = new PassThrough();
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out += chunk.toString();
      callback();
    },
  });
  const stderr = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  return {
    io: { stdin, stdout, stderr },
    out: () => out,
    async waitFor(wanted: string | RegExp, from = 0): Promise<string> {
      for (let tries = 0; ; tries += 1) {
        const seen = out.slice(from);
        const found = typeof wanted === 'string' ? (seen.includes(wanted) ? wanted : undefined) : wanted.exec(seen)?.[0];
        if (found !== undefined) return found;
        if (tries > 1000) throw new Error(`never saw ${typeof wanted === 'string' ? JSON.stringify(wanted) : String(wanted)} in:\n${out}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    say: (line: string) => stdin.write(`${line}\n`),
  };
}
