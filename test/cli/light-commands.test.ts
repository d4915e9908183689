// `familiar --version`, `--help` and a usage error answer without loading what a command's context opens (the
// config's YAML and schema, SQLite, the logger): those are most of a one-shot command's start. Checked on the built
// modules (`npm run build` first) in a child process whose module resolutions are recorded.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runRecordingResolutions } from '../helpers/resolutions.js';

const CONTEXT_MODULES = ['/dist/cli/context.js', '/dist/config/load.js', '/dist/db/database.js', '/dist/log.js', 'better-sqlite3'];

/** Runs the command line on `words` from the built modules; what it printed, its exit code and the modules it resolved. */
function runRecorded(words: string[]): { stdout: string; code: number; loaded: string[] } {
  const dir = tempDir('familiar-light-');
  const run = pathToFileURL(path.resolve('dist/cli/run.js')).href;
  const script = `const { runCli } = await import('${run}'); process.exitCode = await runCli(${JSON.stringify(words)});`;
  const child = runRecordingResolutions(script, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
  return { stdout: child.stdout, code: child.status, loaded: child.resolved };
}

const opened = (loaded: string[]) => CONTEXT_MODULES.filter((name) => loaded.some((url) => url.includes(name)));

describe('commands that need no config', () => {
  it.each([[['--version']], [['--help']], [['jobs', '--frobnicate']]])('%j loads no config, database or logger', (words) => {
    const { code, loaded } = runRecorded(words);
    expect(code).toBe(words[0] === 'jobs' ? 2 : 0);
    expect(opened(loaded)).toEqual([]);
  });

  it('prints the package version', () => {
    const { version } = JSON.parse(spawnSync('node', ['-p', 'JSON.stringify(require("./package.json"))'], { encoding: 'utf8' }).stdout) as { version: string };
    expect(runRecorded(['--version']).stdout.trim()).toBe(version);
  });

  it('loads them for a command that reads the config', () => {
    const { loaded } = runRecorded(['audit']);
    expect(opened(loaded)).toEqual(expect.arrayContaining(['/dist/cli/context.js', '/dist/config/load.js', '/dist/db/database.js']));
  });
});
