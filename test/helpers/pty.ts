// A command under a pseudo-terminal, for testing interactive prompts end to end: util-linux `script` (in every
// Debian, package bsdutils) allocates the terminal; we type into its stdin and read what the terminal shows.
import { spawn, type ChildProcess } from 'node:child_process';

export interface PtySession {
  child: ChildProcess;
  /** Everything shown so far, ANSI escapes removed. */
  screen(): string;
  /** Waits until the screen (after `from`, an earlier screen length) matches; throws with the screen on timeout. */
  waitFor(pattern: string | RegExp, options?: { timeoutMs?: number; from?: number }): Promise<number>;
  type(text: string): void;
  exited: Promise<number | null>;
}

export const KEY = { enter: '\r', down: '\u001b[B', up: '\u001b[A', backspace: '\u007f', ctrlC: '\u0003' };

// CSI and OSC sequences, and the lone ESC-x forms; enough for what prompt libraries draw.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function spawnInPty(command: string[], options: { cwd: string; env: Record<string, string>; columns?: number }): PtySession {
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  // A real size: prompt libraries wrap to the terminal's width, and a 0-column terminal wraps every character.
  const shell = `stty cols ${options.columns ?? 160} rows 50 2>/dev/null; exec ${quoted}`;
  const child = spawn('script', ['-qefc', shell, '/dev/null'], { cwd: options.cwd, env: { TERM: 'xterm-256color', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  const append = (chunk: Buffer): void => {
    raw += chunk.toString('utf8');
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const screen = (): string => raw.replace(ANSI, '').replaceAll('\r', '');
  return {
    child,
    screen,
    async waitFor(pattern, { timeoutMs = 15_000, from = 0 } = {}) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const text = screen().slice(from);
        const index = typeof pattern === 'string' ? text.indexOf(pattern) : text.search(pattern);
        if (index >= 0) return from + index;
        if (Date.now() > until || child.exitCode !== null) {
          throw new Error(`the terminal never showed ${String(pattern)}${child.exitCode !== null ? ` (exited ${child.exitCode})` : ''}; it shows:\n${text.slice(-3000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    type(text) {
      child.stdin?.write(text);
    },
    exited,
  };
}
