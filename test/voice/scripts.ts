// Small shell scripts standing in for a local engine in tests (a broken recogniser, a spy that reports its
// environment): written to a test folder, executable, returned by path.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeScript(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
