/**
 * Your own tools: the modules (`defineTool`, `defineHook`) and script tools (`NAME.yaml` + script) in `tools_dir`,
 * registered in the one registry beside the built-ins, so they get the same validation, agents' policies, approvals,
 * trust policy, deadlines, output caps, redaction and audit. Modules run inside the daemon with its full rights:
 * each is listed at start with its sha256. `reload()` reads the folder again (the running daemon calls it when a file
 * there changes; a config reload can call it too): changed modules are imported anew, removed ones unregistered, and a
 * module that no longer loads keeps its previous version running while the problem is said.
 */
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { Logger } from '../log.js';
import type { DoctorLine, Part } from '../part.js';
import type { EventBus } from '../tools/events.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { AfterHook, BeforeHook } from '../tools/call.js';
import type { AnyTool } from '../tools/types.js';
import { scanFolder, confinedFile, sha256Of, type FolderEntry } from './folder.js';
import { describeLoadError } from './load-error.js';
import { readModuleDefinitions, type HookSpec } from './module-definitions.js';
import { registerToolModuleHooks, toolModuleUrl } from './module-hooks.js';
import { readScriptTool } from './script-tool.js';

/** A module whose top level never finishes (an await on something that never comes) must not hold the daemon up. */
const IMPORT_TIMEOUT_MS = 10_000;
const WATCH_DEBOUNCE_MS = 250;

/** What the part needs of the registry: its tools and middleware. */
export type ToolHost = Pick<ToolRegistry, 'register' | 'unregister' | 'get' | 'on'>;

export interface CustomToolsDeps {
  config: Config;
  log: Logger;
  registry: ToolHost;
  events: Pick<EventBus, 'on'>;
  /** Whether the sandbox can run script tools here (configured; in the daemon, its engine answered). */
  sandboxReady: boolean;
  /** `daemon`: the listing at info level, and the folder watched (`tools.watch`). */
  mode: 'daemon' | 'command';
}

export interface LoadedFile {
  /** As in the folder. */
  name: string;
  file: string;
  kind: 'module' | 'script';
  sha256: string;
  tools: string[];
  hooks: string[];
  /** A script tool's script and where it runs. */
  script?: { file: string; sha256: string; where: 'sandbox' | 'host' };
  loadedAt: number;
}

export interface CustomToolsReport {
  dir: string;
  files: LoadedFile[];
  /** Files not loaded, each with why; `kept`: an earlier version of it still runs. */
  problems: Array<{ name: string; file: string; error: string; kept: boolean }>;
}

export interface CustomTools {
  part: Part;
  /** Reads the folder again if anything in it changed. Contract: never throws. */
  reload(): Promise<CustomToolsReport>;
  report(): CustomToolsReport;
}

interface Active extends LoadedFile {
  remove: Array<() => void>;
}

interface Loaded {
  tools: AnyTool[];
  hooks: HookSpec[];
  script?: LoadedFile['script'];
}

/** Makes the folder if needed and loads what is in it; the tools are registered when this returns. */
export async function createCustomToolsPart(deps: CustomToolsDeps): Promise<CustomTools> {
  const { config, registry } = deps;
  const dir = config.tools_dir;
  const log = deps.log.child({ component: 'custom-tools' });
  try {
    // The person's alone, like the rest of data_dir (code others could change would run with the daemon's rights).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    log.warn({ err: error }, `custom tools: cannot make ${dir}`);
  }
  const active = new Map<string, Active>();
  /** Which file registered each tool name (and alias). */
  const owners = new Map<string, string>();
  let problems: CustomToolsReport['problems'] = [];
  let fingerprint: string | undefined;
  let generation = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;

  const report = (): CustomToolsReport => ({
    dir,
    files: [...active.values()].map(({ remove: _remove, ...file }) => file).sort((a, b) => a.name.localeCompare(b.name)),
    problems: [...problems],
  });

  const load = async (entry: FolderEntry, files: readonly string[]): Promise<Result<Loaded>> => {
    if (entry.kind === 'script') {
      const script = await readScriptTool(entry.file, {
        config, dir, sandboxReady: deps.sandboxReady, siblings: files, confined: (file) => confinedFile(dir, file),
      });
      if (!script.success) return script;
      return succeed({ tools: [script.value.tool], hooks: [], script: { file: script.value.script, sha256: script.value.scriptSha256, where: script.value.where } });
    }
    registerToolModuleHooks();
    let exported: unknown;
    try {
      const namespace = await withTimeout(import(toolModuleUrl(entry.file, generation)) as Promise<{ default?: unknown }>, IMPORT_TIMEOUT_MS);
      exported = namespace.default;
    } catch (error) {
      return failure(await describeLoadError(error, entry.file));
    }
    const definitions = await readModuleDefinitions(exported);
    if (!definitions.success) return definitions;
    return succeed(definitions.value);
  };

  /** A name this file may take: free, or its own from the version it replaces. */
  const clash = (tools: readonly AnyTool[], file: string): string | undefined => {
    for (const tool of tools) {
      for (const name of [tool.name, ...(tool.aliases ?? [])]) {
        const owner = owners.get(name);
        if (owner === file) continue;
        if (owner !== undefined) return `duplicate name: "${name}" is already defined by ${path.basename(owner)}; rename one of them`;
        if (registry.get(name)) return `duplicate name: "${name}" is a built-in tool (or an MCP tool's); pick another name`;
      }
    }
    return undefined;
  };

  const remove = (file: string) => {
    const current = active.get(file);
    if (!current) return;
    for (const undo of current.remove) undo();
    for (const [name, owner] of owners) if (owner === file) owners.delete(name);
    active.delete(file);
  };

  const add = (entry: FolderEntry, loaded: Loaded, sha256: string) => {
    const undo: Array<() => void> = [];
    for (const tool of loaded.tools) {
      registry.register(tool);
      undo.push(() => registry.unregister(tool.name));
      for (const name of [tool.name, ...(tool.aliases ?? [])]) owners.set(name, entry.file);
    }
    for (const hook of loaded.hooks) {
      const source = entry.name;
      if (hook.event === 'tool:before') undo.push(registry.on('tool:before', hook.handler as unknown as BeforeHook, { source }));
      else if (hook.event === 'tool:after') undo.push(registry.on('tool:after', hook.handler as unknown as AfterHook, { source }));
      else undo.push(deps.events.on(hook.event, hook.handler as (event: unknown) => void, { source }));
    }
    active.set(entry.file, {
      name: entry.name, file: entry.file, kind: entry.kind, sha256, tools: loaded.tools.map((tool) => tool.name), hooks: loaded.hooks.map((hook) => hook.event),
      ...(loaded.script ? { script: loaded.script } : {}), loadedAt: Date.now(), remove: undo,
    });
  };

  const readFolder = async (): Promise<CustomToolsReport> => {
    const scan = scanFolder(dir);
    if (scan.fingerprint === fingerprint) return report();
    const first = fingerprint === undefined;
    fingerprint = scan.fingerprint;
    generation += 1;
    const next: CustomToolsReport['problems'] = scan.refused.map(({ file, error }) => ({ name: path.basename(file), file, error, kept: false }));
    const present = new Set(scan.entries.map((entry) => entry.file));
    for (const file of [...active.keys()]) if (!present.has(file)) remove(file);
    const changed: string[] = [];
    for (const entry of scan.entries) {
      let sha256: string;
      try {
        sha256 = sha256Of(entry.file);
      } catch (error) {
        next.push({ name: entry.name, file: entry.file, error: `cannot be read (${errorMessage(error)})`, kept: active.has(entry.file) });
        continue;
      }
      const loaded = await load(entry, scan.files);
      const problem = loaded.success ? clash(loaded.value.tools, entry.file) : loaded.error;
      if (problem !== undefined || !loaded.success) {
        next.push({ name: entry.name, file: entry.file, error: problem ?? 'not loaded', kept: active.has(entry.file) });
        continue;
      }
      const before = active.get(entry.file)?.sha256;
      remove(entry.file);
      add(entry, loaded.value, sha256);
      if (before !== sha256) changed.push(entry.name);
    }
    problems = next;
    announce(first, changed);
    return report();
  };

  /** The trust listing: every file that runs, with its hash; every file that does not, with why. */
  const announce = (first: boolean, changed: readonly string[]) => {
    const current = report();
    const level = deps.mode === 'daemon' ? 'info' : 'debug';
    if (first && current.files.length > 0) {
      log[level]({ dir, files: current.files.length }, `custom tools: ${current.files.length} file(s) in ${dir} run inside the daemon with its full rights (only put code you trust there)`);
    }
    for (const file of current.files) {
      if (!first && !changed.includes(file.name)) continue;
      const where = file.script ? ` (${file.script.where === 'host' ? 'on the host' : 'in the sandbox'}: ${path.basename(file.script.file)} sha256 ${file.script.sha256})` : '';
      log[level]({ file: file.file, sha256: file.sha256, tools: file.tools, hooks: file.hooks, ...(file.script ? { script: file.script } : {}) },
        `custom tools: ${first ? 'loaded' : 'reloaded'} ${file.name} sha256 ${file.sha256}: ${describeContents(file)}${where}`);
    }
    for (const problem of current.problems) {
      log.error({ file: problem.file }, `custom tools: ${problem.name}: ${problem.error}${problem.kept ? ' (its previous version keeps running)' : ' (not loaded; the rest of the daemon runs)'}`);
    }
  };

  const reload = (): Promise<CustomToolsReport> => {
    const next = chain.then(readFolder).catch((error: unknown) => {
      log.error({ err: error }, 'custom tools: reload failed');
      return report();
    });
    chain = next;
    return next;
  };

  await reload();

  const part: Part = {
    name: 'custom-tools',
    async start() {
      if (deps.mode !== 'daemon' || !config.tools.watch) return;
      try {
        watcher = watch(dir, { recursive: true }, () => {
          clearTimeout(debounce);
          // Editors write in several steps (a temporary file, a rename): one reload once they are done.
          debounce = setTimeout(() => void reload(), WATCH_DEBOUNCE_MS);
        });
        watcher.on('error', (error) => log.warn({ err: error }, `custom tools: stopped watching ${dir}; changes are picked up on the next reload`));
      } catch (error) {
        log.warn({ err: error }, `custom tools: cannot watch ${dir}; changes are picked up on the next reload`);
      }
    },
    async stop() {
      clearTimeout(debounce);
      watcher?.close();
      watcher = undefined;
    },
    async reload() {
      await reload();
    },
    async doctor() {
      return doctorLines(report(), config);
    },
  };
  return { part, reload, report };
}

function describeContents(file: LoadedFile): string {
  const parts = [];
  if (file.tools.length > 0) parts.push(`tool${file.tools.length > 1 ? 's' : ''} ${file.tools.join(', ')}`);
  if (file.hooks.length > 0) parts.push(`hook${file.hooks.length > 1 ? 's' : ''} ${file.hooks.join(', ')}`);
  return parts.join('; ') || 'nothing';
}

function doctorLines(report: CustomToolsReport, config: Config): DoctorLine[] {
  const tools = report.files.flatMap((file) => file.tools);
  const lines: DoctorLine[] = [{
    status: 'ok',
    label: 'custom tools',
    detail: report.files.length === 0
      ? `none in ${report.dir} (familiar tools new NAME makes one)`
      : `${tools.length} tool(s) from ${report.files.length} file(s) in ${report.dir}, run with the daemon's rights`,
  }];
  for (const problem of report.problems) {
    lines.push({ status: 'fail', label: `custom tools: ${problem.name}`, detail: problem.error + (problem.kept ? ' (its previous version keeps running)' : ''), fix: `fix ${problem.file}; the daemon reloads it when it changes` });
  }
  const scripts = new Set(report.files.filter((file) => file.kind === 'script').flatMap((file) => file.tools));
  for (const name of Object.keys(config.tools.scripts)) {
    if (!scripts.has(name)) lines.push({ status: 'warn', label: `tools.scripts.${name}`, detail: 'names no script tool in tools_dir', fix: `add ${name}.yaml to ${report.dir}, or remove the key` });
  }
  return lines;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not finish loading within ${ms / 1000} s (a top-level await that never ends?)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
