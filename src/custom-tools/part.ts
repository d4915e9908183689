/**
 * Your own tools: the modules (`defineTool`, `defineHook`) and script tools (`NAME.yaml` + script) in `tools_dir`,
 * registered in the one registry beside the built-ins, so they get the same validation, agents' policies, approvals,
 * trust policy, deadlines, output caps, redaction and audit. Modules run inside the daemon with its full rights:
 * each is listed at start with its sha256. `reload()` reads the folder again (the running daemon calls it when a file
 * there changes; a config reload can call it too): changed modules are imported anew, removed ones unregistered, and a
 * module that no longer loads keeps its previous version running while the problem is said.
 */
import { mkdirSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { DoctorLine, Part } from '../part.js';
import type { CustomToolsReport, ToolFolder, ToolFolderDeps } from './tool-folder.js';

export type { CustomToolsReport, LoadedFile, ToolHost } from './tool-folder.js';

const WATCH_DEBOUNCE_MS = 250;

/** The folder's dependencies; its place is the config's `tools_dir`. */
export type CustomToolsDeps = Omit<ToolFolderDeps, 'dir'>;

export interface CustomTools {
  part: Part;
  /** Reads the folder again if anything in it changed. Contract: never throws. */
  reload(): Promise<CustomToolsReport>;
  report(): CustomToolsReport;
}

/** Makes the folder if needed and loads what is in it; the tools are registered when this returns. */
export async function createCustomToolsPart(deps: CustomToolsDeps): Promise<CustomTools> {
  const { config } = deps;
  const dir = config.tools_dir;
  const log = deps.log.child({ component: 'custom-tools' });
  try {
    // The person's alone, like the rest of data_dir (code others could change would run with the daemon's rights).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    log.warn({ err: error }, `custom tools: cannot make ${dir}`);
  }
  // The folder's code (importing modules, script tools and their checks) loads once a file is in it: most daemons
  // have none, and their start does not pay for it. A file that appears later is found by the watcher or a reload.
  let folder: ToolFolder | undefined;
  const reload = async (): Promise<CustomToolsReport> => {
    if (!folder) {
      if (isEmpty(dir)) return { dir, files: [], problems: [] };
      const { ToolFolder: Folder } = await import('./tool-folder.js');
      folder ??= new Folder({ ...deps, dir, log });
    }
    return folder.reload();
  };
  const report = (): CustomToolsReport => folder?.report() ?? { dir, files: [], problems: [] };
  await reload();
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
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

/**
 * Nothing in the folder (or no folder): nothing to load. A folder every user may write is not taken as empty, so the
 * folder's check says so at start and in the doctor, as it did before anything was put there.
 */
function isEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0 && (statSync(dir).mode & 0o002) === 0;
  } catch {
    return true;
  }
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
