import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from './app.js';

export interface RecordedRun {
  stdout: string;
  stderr: string;
  status: number;
  /** Every module the child resolved, by URL, in order. */
  resolved: string[];
}

/**
 * Writes the files that make a child Node record what it loads, each as a `RESOLVED <url or path>` line on stderr, and
 * returns the `--import` argument that installs them: a resolve hook for ES module resolutions and, with `requires`,
 * Module._load for CommonJS ones (packages loaded with `require`, which resolve hooks do not see).
 */
export function recordingImport(options: { requires?: boolean } = {}): string {
  const dir = tempDir('familiar-resolutions-');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(hooks, [
    "import { writeSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    '  const resolved = await next(specifier, context);',
    "  writeSync(2, 'RESOLVED ' + resolved.url + '\\n');",
    '  return resolved;',
    '}',
  ].join('\n'));
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, [
    "import { register } from 'node:module';",
    `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
    ...(options.requires ? [
      "import { createRequire } from 'node:module';",
      "import { writeSync } from 'node:fs';",
      "const Module = createRequire(import.meta.url)('node:module');",
      'const load = Module._load;',
      "Module._load = function (request, parent, isMain) { const loaded = load.call(this, request, parent, isMain); try { writeSync(2, 'RESOLVED ' + Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {} return loaded; };",
    ] : []),
  ].join('\n') + '\n');
  return pathToFileURL(register).href;
}

/**
 * Runs an ES module `script` in a child Node whose module resolutions are recorded (a resolve hook registered with
 * `--import`): which of the built modules a path loads, checked on `dist/` (`npm run build` first).
 */
export function runRecordingResolutions(script: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): RecordedRun {
  const dir = tempDir('familiar-resolutions-');
  const child = spawnSync(process.execPath, ['--import', recordingImport(), '--input-type=module', '-e', script], {
    cwd: options.cwd ?? dir, env: options.env ?? { PATH: process.env.PATH ?? '' }, encoding: 'utf8',
  });
  const lines = child.stderr.split('\n');
  return {
    stdout: child.stdout,
    stderr: lines.filter((line) => !line.startsWith('RESOLVED ')).join('\n'),
    status: child.status ?? -1,
    resolved: lines.filter((line) => line.startsWith('RESOLVED ')).map((line) => line.slice('RESOLVED '.length)),
  };
}
