import path from 'node:path';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { Logger } from '../log.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { AfterHook, BeforeHook } from '../tools/call.js';
import type { EventBus } from '../tools/events.js';
import type { AnyTool } from '../tools/types.js';
import { scanFolder, confinedFile, sha256Of, type FolderEntry } from './folder.js';
import { describeLoadError } from './load-error.js';
import { readModuleDefinitions, type HookSpec } from './module-definitions.js';
import { registerToolModuleHooks, toolModuleUrl } from './module-hooks.js';
import { readScriptTool } from './script-tool.js';

/** A module whose top level never finishes (an await on something that never comes) must not hold the daemon up. */
const IMPORT_TIMEOUT_MS = 10_000;

/** What the part needs of the registry: its tools and middleware. */
export type ToolHost = Pick<ToolRegistry, 'register' | 'unregister' | 'get' | 'on'>;

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

interface Active extends LoadedFile {
  remove: Array<() => void>;
}

interface Loaded {
  tools: AnyTool[];
  hooks: HookSpec[];
  script?: LoadedFile['script'];
}

export interface ToolFolderDeps {
  /** `tools_dir`. */
  dir: string;
  config: Config;
  log: Logger;
  registry: ToolHost;
  events: Pick<EventBus, 'on'>;
  /** Whether the sandbox can run script tools here (configured; in the daemon, its engine answered). */
  sandboxReady: boolean;
  /** `daemon`: the listing at info level, and the folder watched (`tools.watch`). */
  mode: 'daemon' | 'command';
}

/**
 * `tools_dir` as it is registered: which file runs, which tool names and hooks each holds, and what did not load.
 * Reads are chained, so two reloads never interleave.
 */
export class ToolFolder {
  private readonly active = new Map<string, Active>();
  /** Which file registered each tool name (and alias). */
  private readonly owners = new Map<string, string>();
  private problems: CustomToolsReport['problems'] = [];
  private fingerprint: string | undefined;
  private generation = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: ToolFolderDeps) {}

  report(): CustomToolsReport {
    return {
      dir: this.deps.dir,
      files: [...this.active.values()].map(({ remove: _remove, ...file }) => file).sort((a, b) => a.name.localeCompare(b.name)),
      problems: [...this.problems],
    };
  }

  /** Reads the folder again if anything in it changed. Contract: never throws. */
  reload(): Promise<CustomToolsReport> {
    const next = this.chain.then(() => this.readFolder()).catch((error: unknown) => {
      this.deps.log.error({ err: error }, 'custom tools: reload failed');
      return this.report();
    });
    this.chain = next;
    return next;
  }

  private async readFolder(): Promise<CustomToolsReport> {
    const scan = scanFolder(this.deps.dir);
    if (scan.fingerprint === this.fingerprint) return this.report();
    const first = this.fingerprint === undefined;
    this.fingerprint = scan.fingerprint;
    this.generation += 1;
    const next: CustomToolsReport['problems'] = scan.refused.map(({ file, error }) => ({ name: path.basename(file), file, error, kept: false }));
    const present = new Set(scan.entries.map((entry) => entry.file));
    for (const file of [...this.active.keys()]) if (!present.has(file)) this.remove(file);
    const changed: string[] = [];
    for (const entry of scan.entries) {
      let sha256: string;
      try {
        sha256 = sha256Of(entry.file);
      } catch (error) {
        next.push({ name: entry.name, file: entry.file, error: `cannot be read (${errorMessage(error)})`, kept: this.active.has(entry.file) });
        continue;
      }
      const loaded = await this.load(entry, scan.files);
      const problem = loaded.success ? this.clash(loaded.value.tools, entry.file) : loaded.error;
      if (problem !== undefined || !loaded.success) {
        next.push({ name: entry.name, file: entry.file, error: problem ?? 'not loaded', kept: this.active.has(entry.file) });
        continue;
      }
      const before = this.active.get(entry.file)?.sha256;
      this.remove(entry.file);
      this.add(entry, loaded.value, sha256);
      if (before !== sha256) changed.push(entry.name);
    }
    this.problems = next;
    this.announce(first, changed);
    return this.report();
  }

  private async load(entry: FolderEntry, files: readonly string[]): Promise<Result<Loaded>> {
    const { config, dir } = this.deps;
    if (entry.kind === 'script') {
      const script = await readScriptTool(entry.file, {
        config, dir, sandboxReady: this.deps.sandboxReady, siblings: files, confined: (file) => confinedFile(dir, file),
      });
      if (!script.success) return script;
      return succeed({ tools: [script.value.tool], hooks: [], script: { file: script.value.script, sha256: script.value.scriptSha256, where: script.value.where } });
    }
    registerToolModuleHooks();
    let exported: unknown;
    try {
      const namespace = await withTimeout(import(toolModuleUrl(entry.file, this.generation)) as Promise<{ default?: unknown }>, IMPORT_TIMEOUT_MS);
      exported = namespace.default;
    } catch (error) {
      return failure(await describeLoadError(error, entry.file));
    }
    const definitions = await readModuleDefinitions(exported);
    if (!definitions.success) return definitions;
    return succeed(definitions.value);
  }

  /** A name this file may take: free, or its own from the version it replaces. */
  private clash(tools: readonly AnyTool[], file: string): string | undefined {
    for (const tool of tools) {
      for (const name of [tool.name, ...(tool.aliases ?? [])]) {
        const owner = this.owners.get(name);
        if (owner === file) continue;
        if (owner !== undefined) return `duplicate name: "${name}" is already defined by ${path.basename(owner)}; rename one of them`;
        if (this.deps.registry.get(name)) return `duplicate name: "${name}" is a built-in tool (or an MCP tool's); pick another name`;
      }
    }
    return undefined;
  }

  private remove(file: string): void {
    const current = this.active.get(file);
    if (!current) return;
    for (const undo of current.remove) undo();
    for (const [name, owner] of this.owners) if (owner === file) this.owners.delete(name);
    this.active.delete(file);
  }

  private add(entry: FolderEntry, loaded: Loaded, sha256: string): void {
    const { registry, events } = this.deps;
    const undo: Array<() => void> = [];
    for (const tool of loaded.tools) {
      registry.register(tool);
      undo.push(() => registry.unregister(tool.name));
      for (const name of [tool.name, ...(tool.aliases ?? [])]) this.owners.set(name, entry.file);
    }
    for (const hook of loaded.hooks) {
      const source = entry.name;
      if (hook.event === 'tool:before') undo.push(registry.on('tool:before', hook.handler as unknown as BeforeHook, { source }));
      else if (hook.event === 'tool:after') undo.push(registry.on('tool:after', hook.handler as unknown as AfterHook, { source }));
      else undo.push(events.on(hook.event, hook.handler as (event: unknown) => void, { source }));
    }
    this.active.set(entry.file, {
      name: entry.name, file: entry.file, kind: entry.kind, sha256, tools: loaded.tools.map((tool) => tool.name), hooks: loaded.hooks.map((hook) => hook.event),
      ...(loaded.script ? { script: loaded.script } : {}), loadedAt: Date.now(), remove: undo,
    });
  }

  /** The trust listing: every file that runs, with its hash; every file that does not, with why. */
  private announce(first: boolean, changed: readonly string[]): void {
    const { dir, log } = this.deps;
    const current = this.report();
    const level = this.deps.mode === 'daemon' ? 'info' : 'debug';
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
  }
}

function describeContents(file: LoadedFile): string {
  const parts = [];
  if (file.tools.length > 0) parts.push(`tool${file.tools.length > 1 ? 's' : ''} ${file.tools.join(', ')}`);
  if (file.hooks.length > 0) parts.push(`hook${file.hooks.length > 1 ? 's' : ''} ${file.hooks.join(', ')}`);
  return parts.join('; ') || 'nothing';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not finish loading within ${ms / 1000} s (a top-level await that never ends?)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
