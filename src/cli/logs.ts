import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { LOG_LEVELS } from '../log.js';
import { parseCommandArgs } from './args.js';
import type { Command, CommandContext } from './context.js';
import { parseSince } from './since.js';
import { optionsOf } from './spec.js';

const USAGE = 'usage: familiar logs [--follow] [--level LEVEL] [--since 2h|2026-11-01T08:00] [--lines N] [--json]\n';
const DEFAULT_LINES = 100;
const POLL_MS = 250;

/**
 * `familiar logs`: the daemon's log file (log.file, default data_dir/logs/familiar.log) and its rotated files, oldest
 * first; readable (pino-pretty), or the JSON lines as written with --json. Without --since, the last 100 lines
 * (--lines N). --follow keeps printing what the daemon writes, across rotations, until Ctrl-C.
 */
export const logsCommand: Command = async (context) => {
  let values;
  try {
    values = parseCommandArgs(context.args, optionsOf('logs')).values;
  } catch (error) {
    context.io.stderr.write(`familiar logs: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const level = typeof values.level === 'string' ? values.level : undefined;
  if (level !== undefined && !Object.hasOwn(LOG_LEVELS, level)) {
    context.io.stderr.write(`familiar logs: --level ${level}: give one of ${Object.keys(LOG_LEVELS).join(', ')}\n`);
    return 2;
  }
  const since = typeof values.since === 'string' ? parseSince(values.since) : undefined;
  if (typeof values.since === 'string' && since === undefined) {
    context.io.stderr.write(`familiar logs: --since "${values.since}" is neither a duration (30m, 2h, 7d) nor a date/time (2026-11-01, 2026-11-01T08:00)\n`);
    return 2;
  }
  const lines = typeof values.lines === 'string' ? Number(values.lines) : since === undefined ? DEFAULT_LINES : Infinity;
  if (!(lines === Infinity || (Number.isInteger(lines) && lines >= 0))) {
    context.io.stderr.write('familiar logs: --lines must be a whole number\n');
    return 2;
  }
  const { config } = context.loadConfig();
  if (config.log.file === 'off') {
    context.io.stderr.write('familiar logs: the daemon keeps no log file (log.file: off in the config); its log is on its stderr (journalctl, docker compose logs)\n');
    return 1;
  }
  const file = config.log.file;
  const filter = makeFilter(level !== undefined ? (LOG_LEVELS[level] ?? 0) : 0, since);
  const print = makePrinter(context);
  const files = logFiles(file);
  if (files.length === 0 && values.follow !== true) {
    context.io.stderr.write(`familiar logs: no log file yet at ${file} (the daemon writes it once started: familiar start)\n`);
    return 1;
  }
  const matching: string[] = [];
  let readUpTo = 0;
  for (const name of files) {
    const content = readFile(name);
    if (name === file) readUpTo = content.bytes;
    for (const line of content.lines) if (filter(line)) matching.push(line);
  }
  for (const line of lines === Infinity ? matching : matching.slice(Math.max(0, matching.length - lines))) print(line);
  if (values.follow !== true) return 0;
  return follow(file, readUpTo, filter, print);
};

/** The rotated files, oldest first (familiar.log.N … .1), then the current one. */
function logFiles(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const rotated = names
    .map((name) => ({ name, index: name.startsWith(`${base}.`) ? Number(name.slice(base.length + 1)) : NaN }))
    .filter((entry) => Number.isInteger(entry.index) && entry.index > 0)
    .sort((a, b) => b.index - a.index)
    .map((entry) => path.join(dir, entry.name));
  return [...rotated, ...(existsSync(file) ? [file] : [])];
}

/** Whole lines only: a line the daemon is still writing is left for --follow (`bytes` ends after the last newline). */
function readFile(file: string): { lines: string[]; bytes: number } {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch {
    return { lines: [], bytes: 0 };
  }
  const end = buffer.lastIndexOf(0x0a) + 1;
  return { lines: buffer.subarray(0, end).toString('utf8').split('\n').filter((line) => line !== ''), bytes: end };
}

/** Lines that are not JSON (a torn write, a hand edit) are shown whatever the filter: nothing is hidden silently. */
function makeFilter(minimum: number, since: number | undefined): (line: string) => boolean {
  return (line) => {
    let entry: { level?: unknown; time?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return true;
    }
    if (typeof entry.level === 'number' && entry.level < minimum) return false;
    if (since !== undefined && typeof entry.time === 'number' && entry.time < since) return false;
    return true;
  };
}

function makePrinter(context: CommandContext): (line: string) => void {
  const out = context.io.stdout;
  if (context.options.json) return (line) => out.write(`${line}\n`);
  const require = createRequire(import.meta.url);
  const { prettyFactory } = require('pino-pretty') as { prettyFactory: (options: object) => (line: string) => string };
  const pretty = prettyFactory({
    colorize: (out as NodeJS.WriteStream).isTTY === true,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return (line) => {
    let text: string;
    try {
      JSON.parse(line);
      text = pretty(line);
    } catch {
      text = `${line}\n`;
    }
    out.write(text.endsWith('\n') ? text : `${text}\n`);
  };
}

/**
 * Hand-written rather than the `tail` package: tail throws when the file does not exist yet (`logs -f` before the
 * daemon's first start) and follows a rotation by re-opening after a fixed second; this reads the old file to its end
 * first, then the new one, told apart by inode.
 *
 * Prints what is appended to `file` until SIGINT/SIGTERM. A rotation (the file renamed to .1 and a new one made) is
 * seen by its inode: the rest of the old file is read first, then the new one from its start. Polls rather than
 * watches: fs.watch misses renames on some file systems, and a quarter second is quick enough for a person.
 */
function follow(file: string, from: number, filter: (line: string) => boolean, print: (line: string) => void): Promise<number> {
  let fd: number | undefined;
  let inode: number | undefined;
  let offset = 0;
  let partial = '';
  const open = (at: number): void => {
    try {
      const stats = statSync(file);
      fd = openSync(file, 'r');
      inode = stats.ino;
      offset = Math.min(at, stats.size);
    } catch {
      fd = undefined;
    }
  };
  const drain = (): void => {
    if (fd === undefined) return;
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, offset);
      if (read === 0) break;
      offset += read;
      partial += buffer.subarray(0, read).toString('utf8');
      const complete = partial.split('\n');
      partial = complete.pop() ?? '';
      for (const line of complete) if (line !== '' && filter(line)) print(line);
    }
  };
  open(from);
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      let current: number | undefined;
      try {
        current = statSync(file).ino;
      } catch {
        current = undefined;
      }
      drain();
      if (current !== inode || fd === undefined) {
        // Rotated (or made for the first time): the old file is finished; the new one is read from its start.
        if (fd !== undefined) closeSync(fd);
        partial = '';
        if (current !== undefined) {
          open(0);
          drain();
        } else fd = undefined;
      }
    }, POLL_MS);
    const stop = (): void => {
      clearInterval(timer);
      if (fd !== undefined) closeSync(fd);
      resolve(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
