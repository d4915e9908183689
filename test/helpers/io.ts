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
