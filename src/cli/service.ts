import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandArgs } from './args.js';
import type { Command, CommandContext } from './context.js';
import { optionsOf } from './spec.js';

const USAGE = 'usage: familiar service install|uninstall|status [--system] [--name NAME] [--force]\n';
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]*$/;

/** Where a unit goes and what it is called. */
export interface UnitPlace {
  system: boolean;
  name: string;
  /** The folder of unit files: ~/.config/systemd/user, or /etc/systemd/system. */
  dir: string;
  file: string;
}

/** What the unit runs: this Node with this installation's entry, on this config. */
export interface UnitInput {
  system: boolean;
  node: string;
  main: string;
  /** The config file, absolute; its folder is the working directory, and `.env` beside it is read by familiar. */
  config: string;
  /** A system unit runs as the config file's owner (a numeric uid, which systemd takes in User=). */
  uid?: number;
}

/**
 * The unit file. No secret is in it, and no copy of one: `familiar start --config FILE` reads config.yaml and the
 * `.env` beside it itself, every start, so a key changed in `.env` needs no new unit (an EnvironmentFile= would be a
 * second reader of `.env`, with systemd's quoting rules instead of dotenv's). The environment of the unit is
 * systemd's, so `${NAME}` references come from `.env` unless set in the environment.
 * - Restart=on-failure, but not for exit 2 (a config the person has to fix: restarting would only fill the log).
 * - ExecReload sends SIGHUP: `systemctl reload` re-reads the config (see Config reload).
 * - TimeoutStopSec above the daemon's 15 s grace for running turns.
 */
export function unitFile(input: UnitInput): string {
  const quote = (value: string): string => (/^[A-Za-z0-9_./@:+-]+$/.test(value) ? value : `"${value.replace(/(["\\])/g, '\\$1')}"`);
  // systemd expands % specifiers and $VARIABLES in ExecStart; paths with them are escaped.
  const exec = (value: string): string => quote(value.replace(/%/g, '%%').replace(/\$/g, '$$$$'));
  const lines = [
    '# Written by `familiar service install`. To change it, run that again (--force); to remove it: familiar service uninstall.',
    '[Unit]',
    'Description=Familiar personal assistant',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${[input.node, input.main, 'start', '--config', input.config].map(exec).join(' ')}`,
    'ExecReload=/bin/kill -HUP $MAINPID',
    // A path, not a command line: taken as written (spaces too), only % is special.
    `WorkingDirectory=${path.dirname(input.config).replace(/%/g, '%%')}`,
    ...(input.system && input.uid !== undefined ? [`User=${input.uid}`] : []),
    'Restart=on-failure',
    'RestartSec=5',
    'RestartPreventExitStatus=2',
    'TimeoutStopSec=30',
    'KillMode=mixed',
    '',
    '[Install]',
    `WantedBy=${input.system ? 'multi-user.target' : 'default.target'}`,
    '',
  ];
  return lines.join('\n');
}

export function unitPlace(system: boolean, name: string, env: NodeJS.ProcessEnv = process.env): UnitPlace {
  const dir = system
    ? '/etc/systemd/system'
    : path.join(env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config'), 'systemd', 'user');
  return { system, name, dir, file: path.join(dir, `${name}.service`) };
}

/** This installation's `familiar` entry: dist/main.js at the package root, from src/cli, dist/cli or dist/bundle. */
function mainScript(): string {
  return fileURLToPath(new URL('../../dist/main.js', import.meta.url));
}

/** `familiar service install|uninstall|status`: a systemd unit that runs `familiar start` on this config. */
export const serviceCommand: Command = async (context) => {
  const { stderr } = context.io;
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('service'));
  } catch (error) {
    stderr.write(`familiar service: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [action, ...rest] = parsed.positionals;
  const { values } = parsed;
  if (action === undefined || !['install', 'uninstall', 'status'].includes(action) || rest.length > 0) {
    stderr.write(`familiar service: ${action === undefined ? 'say what to do' : rest.length > 0 ? `unexpected "${rest.join(' ')}"` : `no action "${action}"`}\n${USAGE}`);
    return 2;
  }
  if (action !== 'install' && values.force === true) {
    stderr.write(`familiar service ${action}: --force is for install\n${USAGE}`);
    return 2;
  }
  const name = typeof values.name === 'string' ? values.name.replace(/\.service$/, '') : 'familiar';
  if (!NAME.test(name)) {
    stderr.write(`familiar service: --name "${name}": letters, digits and _ . @ - only\n`);
    return 2;
  }
  const place = unitPlace(values.system === true, name);
  if (action === 'install') return install(context, place, values.force === true);
  if (action === 'uninstall') return Promise.resolve(uninstall(context, place));
  return Promise.resolve(status(context, place));
};

/** The unit for the config the command line names, or a one-line reason why there is none. */
function wanted(context: CommandContext, place: UnitPlace): { unit: string; config: string } | { error: string } {
  const loaded = context.loadConfig();
  if (loaded.source !== 'file') {
    return { error: `no config file at ${loaded.path}: the service runs on one. Write it first (familiar init), or name it with --config` };
  }
  const main = mainScript();
  if (!existsSync(main)) return { error: `${main} is missing: build Familiar first (npm run build)` };
  const uid = place.system ? statSync(loaded.path).uid : undefined;
  return { unit: unitFile({ system: place.system, node: process.execPath, main, config: loaded.path, ...(uid !== undefined ? { uid } : {}) }), config: loaded.path };
}

function install(context: CommandContext, place: UnitPlace, force: boolean): Promise<number> {
  const { stdout, stderr } = context.io;
  const want = wanted(context, place);
  if ('error' in want) {
    stderr.write(`familiar service install: ${want.error}\n`);
    return Promise.resolve(2);
  }
  const current = readUnit(place.file);
  if (current === want.unit) {
    stdout.write(`${place.file} is already installed for ${want.config}.\n`);
    printNext(context, place, false);
    return Promise.resolve(0);
  }
  if (current !== undefined && !force) {
    stderr.write(`familiar service install: ${place.file} exists and differs (another config or installation): familiar service status shows it; --force replaces it\n`);
    return Promise.resolve(1);
  }
  try {
    mkdirSync(place.dir, { recursive: true });
    writeFileSync(place.file, want.unit, { mode: 0o644 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const hint = place.system && (code === 'EACCES' || code === 'EPERM') ? ': a system unit is written as root (sudo familiar service install --system)' : '';
    stderr.write(`familiar service install: cannot write ${place.file} (${code})${hint}\n`);
    return Promise.resolve(1);
  }
  stdout.write(`${current === undefined ? 'Wrote' : 'Replaced'} ${place.file}: runs familiar start --config ${want.config} (and its .env), restarts on failure.\n`);
  printNext(context, place, current !== undefined);
  return Promise.resolve(0);
}

function printNext(context: CommandContext, place: UnitPlace, replaced: boolean): void {
  const ctl = place.system ? 'sudo systemctl' : 'systemctl --user';
  const journal = place.system ? `journalctl -u ${place.name} -f` : `journalctl --user -u ${place.name} -f`;
  const lines = [
    'To start it now and at every boot:',
    `  ${ctl} daemon-reload`,
    `  ${ctl} ${replaced ? 'restart' : 'enable --now'} ${place.name}`,
    ...(place.system ? [] : [`  loginctl enable-linger ${process.env.USER ?? '$USER'}   # keep it running when you are logged out`]),
    `Then: ${ctl} status ${place.name}, familiar logs -f (or ${journal}); ${ctl} reload ${place.name} re-reads the config.`,
  ];
  context.io.stdout.write(`${lines.join('\n')}\n`);
}

function uninstall(context: CommandContext, place: UnitPlace): number {
  const { stdout, stderr } = context.io;
  if (readUnit(place.file) === undefined) {
    stdout.write(`No unit at ${place.file}: nothing to remove.\n`);
    return 0;
  }
  // Stop and disable it first, so no enabled link points at a missing file; without a running systemd (a
  // container, no user session) that is said, and the file is removed anyway.
  const stopped = systemctl(place, ['disable', '--now', place.name]);
  if (!stopped.ok) stderr.write(`familiar service uninstall: systemctl could not stop and disable it (${stopped.output}); if it runs: ${place.system ? 'sudo systemctl' : 'systemctl --user'} disable --now ${place.name}\n`);
  try {
    rmSync(place.file);
  } catch (error) {
    stderr.write(`familiar service uninstall: cannot remove ${place.file} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    return 1;
  }
  if (stopped.ok) systemctl(place, ['daemon-reload']);
  stdout.write(`Removed ${place.file}${stopped.ok ? ' (stopped and disabled)' : ''}.\n`);
  return 0;
}

function status(context: CommandContext, place: UnitPlace): number {
  const current = readUnit(place.file);
  const want = wanted(context, place);
  const matches = current !== undefined && 'unit' in want && current === want.unit;
  const active = current === undefined ? undefined : systemctl(place, ['is-active', place.name]);
  const state = active === undefined ? undefined : active.ok || /^(active|inactive|failed|activating|deactivating|reloading)$/.test(active.output) ? active.output : `unknown (${active.output})`;
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify({ unit: place.file, installed: current !== undefined, matchesConfig: matches, state: state ?? null })}\n`);
  } else if (current === undefined) {
    context.io.stdout.write(`No unit at ${place.file}. familiar service install${place.system ? ' --system' : ''} writes it.\n`);
  } else {
    const why = 'error' in want ? want.error : 'it runs another config or installation (familiar service install --force rewrites it)';
    context.io.stdout.write([
      `unit: ${place.file}`,
      `config: ${matches ? `this one (${'config' in want ? want.config : ''})` : `not this one: ${why}`}`,
      `state: ${state ?? 'unknown'}`,
      '',
    ].join('\n'));
  }
  return matches ? 0 : 1;
}

function readUnit(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** systemctl's answer, first line; `ok` is its exit 0. Never throws: no systemd is an answer too. */
function systemctl(place: UnitPlace, args: string[]): { ok: boolean; output: string } {
  try {
    const output = execFileSync('systemctl', [...(place.system ? [] : ['--user']), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
    return { ok: true, output: output.trim().split('\n')[0] ?? '' };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: string };
    const text = `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim().split('\n')[0] ?? '';
    return { ok: false, output: text || (failed.code === 'ENOENT' ? 'systemctl is not installed' : 'systemctl failed') };
  }
}
