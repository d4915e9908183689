import { createHash } from 'node:crypto';
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
  const log = deps.log.child({ component: 'config' });
  const { loaded } = deps;
  const file = loaded.source === 'file' ? loaded.path : undefined;
  const envFile = file ? path.join(path.dirname(file), '.env') : undefined;
  // The redaction was built from the secrets at start: a value bringing a new one waits for a restart.
  const secrets = loaded.secrets;
  const state: ReloadStatus = { path: loaded.path, loadedAt: new Date().toISOString(), reloads: 0, pendingRestart: [] };
  // The last text seen of each watched file: an editor's save that changes nothing (or a touch) is not a reload.
  const seen = new Map<string, string>();
  const fingerprint = (name: string): string => {
    try {
      return createHash('sha256').update(readFileSync(name)).digest('hex');
    } catch {
      return 'missing';
    }
  };
  for (const name of [file, envFile]) if (name) seen.set(name, fingerprint(name));

  function reload(reason: string): ReloadOutcome {
    const at = new Date().toISOString();
    for (const name of [file, envFile]) if (name) seen.set(name, fingerprint(name));
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
    const changes = classifyChanges(loaded.config, next.config, secrets, next.secrets);
    state.pendingRestart = changes.restart;
    if (changes.live.length === 0 && changes.restart.length === 0) {
      log.info({ reason }, 'config reloaded: nothing changed');
      return { status: 'unchanged' };
    }
    applyChanges(loaded.config, next.config, changes.live);
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

  // Node's fs.watch on the folder rather than chokidar: two known files, renames seen through their folder, and the
  // content compared by hash, which is what chokidar's atomic-save handling would add, for a dependency tree more.
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const onChange = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const changed = [file, envFile].filter((name): name is string => name !== undefined && seen.get(name) !== fingerprint(name));
      if (changed.length === 0) return;
      reload(`${changed.map((name) => path.basename(name)).join(' and ')} changed`);
    }, deps.settleMs ?? 300);
  };

  const part: Part = {
    name: 'config-reload',
    start() {
      if (!file) {
        log.info('config: no config file, so none is watched (familiar init writes one; SIGHUP reloads)');
        return Promise.resolve();
      }
      // The folder, not the file: editors save by writing a new file and renaming it over the old one.
      try {
        watcher = watch(path.dirname(file), (_event, name) => {
          if (name === null || name === path.basename(file) || name === '.env') onChange();
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
  return { part, reload, status: () => structuredClone(state) };
}

function formatProblem(problem: ConfigProblem): string {
  return problem.keyPath ? `${problem.keyPath}: ${problem.reason}` : problem.reason;
}
