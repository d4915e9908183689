import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { applyChanges, classifyChanges, type ConfigChanges, type ReloadStatus } from '../config/live.js';
import type { LoadedConfig } from '../config/load.js';
import { ConfigError, errorMessage, type ConfigProblem } from '../errors.js';
import type { Logger } from '../log.js';
import type { Part } from '../part.js';

export type ReloadOutcome =
  | { status: 'applied'; changes: ConfigChanges }
  | { status: 'unchanged' }
  | { status: 'refused'; problems: string[] };

export interface ConfigReloadDeps {
  /** The config the daemon was made with; its `config` object is updated in place. */
  loaded: LoadedConfig;
  /** Reads the config again as the command line did (same --config, same environment, `.env` again). */
  load: () => LoadedConfig;
  /** The checks a start makes beyond the schema (routes, declared jobs, http); throws ConfigError. */
  check: (next: LoadedConfig) => void;
  /** After the live keys were written into the running config: the parts that derive state from them refresh it. */
  applied: (keys: readonly string[], next: LoadedConfig) => void;
  log: Logger;
  /** How long to wait for an editor's burst of writes to settle before reading. */
  settleMs?: number;
}

/**
 * Config reload for the daemon: on SIGHUP (`reload('SIGHUP')`, wired by `familiar start`) and when config.yaml or
 * the `.env` beside it changes on disk (the part's watcher). Reads and checks the new config; a bad one is refused
 * whole (logged with every problem, shown by `familiar status`) and the daemon runs on; a good one has its live keys
 * written into the running config between two events of the loop — no turn is dropped, a turn in flight sees the new
 * values from its next step — and its other changes named as needing a restart.
 */
export function createConfigReload(deps: ConfigReloadDeps): { part: Part; reload: (reason: string) => ReloadOutcome; status: () => ReloadStatus } {
  const { loaded } = deps;
  const file = loaded.source === 'file' ? loaded.path : undefined;
  const reloading: Reloading = {
    deps,
    log: deps.log.child({ component: 'config' }),
    files: file ? [file, path.join(path.dirname(file), '.env')] : [],
    // The redaction was built from the secrets at start: a value bringing a new one waits for a restart.
    secrets: loaded.secrets,
    state: { path: loaded.path, loadedAt: new Date().toISOString(), reloads: 0, pendingRestart: [] },
    seen: new Map(),
  };
  for (const name of reloading.files) reloading.seen.set(name, fingerprint(name));
  const reload = (reason: string): ReloadOutcome => reloadConfig(reloading, reason);
  const onChange = (): void => {
    const changed = reloading.files.filter((name) => reloading.seen.get(name) !== fingerprint(name));
    if (changed.length > 0) reload(`${changed.map((name) => path.basename(name)).join(' and ')} changed`);
  };
  const part = file ? watchingPart(file, reloading.log, onChange, deps.settleMs ?? 300) : unwatchedPart(reloading.log);
  return { part, reload, status: () => structuredClone(reloading.state) };
}

/** What a reload reads and keeps between reloads. */
interface Reloading {
  deps: ConfigReloadDeps;
  log: Logger;
  /** config.yaml and the `.env` beside it; none when the config did not come from a file. */
  files: string[];
  secrets: LoadedConfig['secrets'];
  state: ReloadStatus;
  /** The last text seen of each watched file: an editor's save that changes nothing (or a touch) is not a reload. */
  seen: Map<string, string | undefined>;
}

/** The file's bytes, as text (a config is a few KB; a hash of it would load Node's crypto at every start). */
function fingerprint(name: string): string | undefined {
  try {
    return readFileSync(name, 'latin1');
  } catch {
    return undefined; // missing
  }
}

/** One reload: read and check, refuse a bad config whole, else write its live keys into the running config. */
function reloadConfig(reloading: Reloading, reason: string): ReloadOutcome {
  const { deps, log, state } = reloading;
  const at = new Date().toISOString();
  for (const name of reloading.files) reloading.seen.set(name, fingerprint(name));
  let next: LoadedConfig;
  try {
    next = deps.load();
    deps.check(next);
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems.map(formatProblem) : [errorMessage(error)];
    state.refused = { at, reason, problems };
    log.error({ reason, problems }, `config reload refused; still running on the config loaded at ${state.loadedAt}:\n${problems.join('\n')}`);
    return { status: 'refused', problems };
  }
  delete state.refused;
  const changes = classifyChanges(deps.loaded.config, next.config, reloading.secrets, next.secrets);
  state.pendingRestart = changes.restart;
  if (changes.live.length === 0 && changes.restart.length === 0) {
    log.info({ reason }, 'config reloaded: nothing changed');
    return { status: 'unchanged' };
  }
  applyChanges(deps.loaded.config, next.config, changes.live);
  if (changes.live.length > 0) deps.applied(changes.live, next);
  state.reloads += 1;
  state.loadedAt = at;
  state.last = { at, reason, applied: changes.live, restart: changes.restart };
  const said = [
    changes.live.length > 0 ? `applied ${changes.live.join(', ')}` : 'nothing to apply live',
    changes.restart.length > 0 ? `needs a restart to take effect: ${changes.restart.join(', ')}` : '',
  ].filter(Boolean).join('; ');
  (changes.restart.length > 0 ? log.warn.bind(log) : log.info.bind(log))({ reason, applied: changes.live, restart: changes.restart }, `config reloaded: ${said}`);
  return { status: 'applied', changes };
}

function unwatchedPart(log: Logger): Part {
  return {
    name: 'config-reload',
    start() {
      log.info('config: no config file, so none is watched (familiar init writes one; SIGHUP reloads)');
      return Promise.resolve();
    },
  };
}

/**
 * Watches the config file's folder and calls `onChange` once an editor's burst of writes has settled. Node's fs.watch
 * on the folder rather than chokidar: two known files, renames seen through their folder, and the content compared by
 * hash, which is what chokidar's atomic-save handling would add, for a dependency tree more.
 */
function watchingPart(file: string, log: Logger, onChange: () => void, settleMs: number): Part {
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const settled = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, settleMs);
  };
  return {
    name: 'config-reload',
    start() {
      // The folder, not the file: editors save by writing a new file and renaming it over the old one.
      try {
        watcher = watch(path.dirname(file), (_event, name) => {
          if (name === null || name === path.basename(file) || name === '.env') settled();
        });
        watcher.on('error', (error) => log.warn({ err: error }, 'config: watching the config folder failed; SIGHUP still reloads'));
      } catch (error) {
        log.warn({ err: error }, 'config: cannot watch the config folder; SIGHUP still reloads');
      }
      return Promise.resolve();
    },
    stop() {
      clearTimeout(timer);
      watcher?.close();
      watcher = undefined;
      return Promise.resolve();
    },
  };
}

function formatProblem(problem: ConfigProblem): string {
  return problem.keyPath ? `${problem.keyPath}: ${problem.reason}` : problem.reason;
}

/** What the running parts do when the keys that concern them change (each refreshes what it derived from them). */
export interface ReloadHooks {
  /** `channels.*.allowed_users` and `people`: who is who, and the chat router's access sets. */
  refreshAccess(): void;
  /** `tools.timeout_s`, `tools.timeouts`, `tools.output_chars`: the registry's limits. */
  toolLimits(): void;
  /** `scheduler.jobs`: the declared jobs in the jobs table. */
  declaredJobs(): void;
  /** `people`: a person's `timezone` changed, so their recurring jobs are re-timed on their new clock. */
  jobZones(): void;
  /** `log.level` (unless `--log-level` set it on the command line). */
  logLevel(): void;
}

/**
 * The one table of what a live change asks of which part (config/live.ts lists the keys that can change live; a key
 * read per use needs nothing here). A change under `keys` calls `hook`.
 */
export const RELOAD_TABLE: ReadonlyArray<{ keys: readonly string[]; hook: keyof ReloadHooks }> = [
  { keys: ['channels', 'people'], hook: 'refreshAccess' },
  { keys: ['tools.timeout_s', 'tools.timeouts', 'tools.output_chars'], hook: 'toolLimits' },
  { keys: ['scheduler.jobs'], hook: 'declaredJobs' },
  { keys: ['people'], hook: 'jobZones' },
  { keys: ['log.level'], hook: 'logLevel' },
];

/** `ConfigReloadDeps.applied` from the table: each hook whose keys changed, once, in the table's order. */
export function appliedBy(hooks: Partial<ReloadHooks>): (keys: readonly string[]) => void {
  return (keys) => {
    const changed = (prefix: string) => keys.some((key) => key === prefix || key.startsWith(`${prefix}.`));
    for (const row of RELOAD_TABLE) if (row.keys.some(changed)) hooks[row.hook]?.();
  };
}
