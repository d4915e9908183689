// A one-shot command's logger is made with its first line at its level (src/log.ts lazyLogger): below it, nothing is
// made; at it, the line is written with its children's bindings, redacted as by the logger itself.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, lazyLogger } from '../../src/log.js';
import { tempDir, writeTestConfig } from '../helpers/app.js';

describe('the lazy logger of one-shot commands', () => {
  it('makes nothing for lines below its level, then writes the first line at it with its children\'s bindings', async () => {
    const lines: string[] = [];
    let made = 0;
    const log = lazyLogger('warn', () => {
      made += 1;
      return createLogger({ level: 'warn', format: 'json', secrets: ['sk-secret-123'], destination: { write: (text: string) => lines.push(text) } });
    });
    const child = log.child({ component: 'scheduler' }).child({ job: 'j-1', token: 'sk-secret-123' });
    child.info('quiet');
    child.debug({ a: 1 }, 'quieter');
    expect(child.isLevelEnabled('info')).toBe(false);
    expect(child.isLevelEnabled('error')).toBe(true);
    expect(child.level).toBe('warn');
    expect(await Promise.resolve(child)).toBe(child);
    expect(made).toBe(0);
    child.warn({ note: 'key sk-secret-123' }, 'cannot run');
    expect(made).toBe(1);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 40, component: 'scheduler', job: 'j-1', token: '[REDACTED]', note: 'key [REDACTED]', msg: 'cannot run' });
    log.error('from the root');
    expect(made).toBe(1);
    expect(lines).toHaveLength(2);
  });

  it('`familiar jobs list` loads no pino when nothing is logged', () => {
    const dir = tempDir();
    const config = writeTestConfig(dir, undefined);
    const run = pathToFileURL(path.resolve('dist/cli/run.js')).href;
    const script = [
      `const { runCli } = await import('${run}');`,
      `process.exitCode = await runCli(['jobs', 'list', '--config', ${JSON.stringify(config)}]);`,
      "const { createRequire } = await import('node:module');",
      "console.error('PINO ' + Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('pino')));",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(child.stderr).toContain('PINO false');
  });
});
