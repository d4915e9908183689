import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unitFile, unitPlace } from '../../src/cli/service.js';
import { runCli } from '../../src/cli/run.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import { describeWithTool } from '../helpers/tools.js';

const SECRET = 'sk-service-secret-9876';
const MAIN = path.resolve('dist/main.js');

/** A config folder (with a space, as people's homes have) holding config.yaml and a .env with a secret. */
function setup() {
  const dir = path.join(tempDir(), 'my assistant');
  mkdirSync(dir);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, 'llm:\n  base_url: http://127.0.0.1:9/v1\n  api_key: ${LLM_KEY}\n  model: small\n');
  writeFileSync(path.join(dir, '.env'), `LLM_KEY=${SECRET}\n`, { mode: 0o600 });
  return { dir, config };
}

let home: string;
let saved: string | undefined;
beforeEach(() => {
  home = tempDir();
  saved = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = home;
});
afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved;
});

async function service(config: string, ...args: string[]) {
  const io = captureIo();
  const code = await runCli(['service', ...args, '--config', config], io);
  return { code, out: io.out(), err: io.err() };
}

describe('familiar service install|status|uninstall (user unit)', () => {
  it('writes a user unit running familiar start on this config, with no secret in it, and says how to start it', async () => {
    const { config } = setup();
    const result = await service(config, 'install');
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const file = path.join(home, 'systemd', 'user', 'familiar.service');
    expect(result.out).toContain(`Wrote ${file}`);
    expect(result.out).toContain('systemctl --user daemon-reload');
    expect(result.out).toContain('systemctl --user enable --now familiar');
    const unit = readFileSync(file, 'utf8');
    expect(unit).toContain(`ExecStart=${process.execPath} ${MAIN} start --config "${config}"`);
    expect(unit).toContain(`WorkingDirectory=${path.dirname(config)}\n`);
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('RestartPreventExitStatus=2');
    expect(unit).toContain('ExecReload=/bin/kill -HUP $MAINPID');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).not.toContain('User=');
    expect(unit).not.toContain(SECRET);
    expect(unit).not.toMatch(/Environment/);
  });

  it('is idempotent, refuses to replace a different unit without --force, and --name names it', async () => {
    const first = setup();
    expect((await service(first.config, 'install')).code).toBe(0);
    const again = await service(first.config, 'install');
    expect(again.code).toBe(0);
    expect(again.out).toContain('is already installed');
    const second = setup();
    const refused = await service(second.config, 'install');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('exists and differs');
    const file = path.join(home, 'systemd', 'user', 'familiar.service');
    expect(readFileSync(file, 'utf8')).toContain(first.config);
    const forced = await service(second.config, 'install', '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toContain('Replaced');
    expect(forced.out).toContain('systemctl --user restart familiar');
    expect(readFileSync(file, 'utf8')).toContain(second.config);
    const named = await service(first.config, 'install', '--name', 'familiar-work');
    expect(named.code).toBe(0);
    expect(readFileSync(path.join(home, 'systemd', 'user', 'familiar-work.service'), 'utf8')).toContain(first.config);
  });

  it('status says whether the unit runs this config (exit 0) or not (exit 1); --json too', async () => {
    const { config } = setup();
    const none = await service(config, 'status');
    expect(none.code).toBe(1);
    expect(none.out).toContain('No unit at');
    await service(config, 'install');
    const mine = await service(config, 'status');
    expect(mine.code).toBe(0);
    expect(mine.out).toContain(`config: this one (${config})`);
    const other = setup();
    const theirs = await service(other.config, 'status', '--json');
    expect(theirs.code).toBe(1);
    expect(JSON.parse(theirs.out)).toMatchObject({ installed: true, matchesConfig: false });
  });

  it('uninstall removes the unit (saying when systemctl could not stop it), and is quiet when there is none', async () => {
    const { config } = setup();
    await service(config, 'install');
    const file = path.join(home, 'systemd', 'user', 'familiar.service');
    const removed = await service(config, 'uninstall');
    expect(removed.code).toBe(0);
    expect(removed.out).toContain(`Removed ${file}`);
    expect(() => readFileSync(file)).toThrow();
    const again = await service(config, 'uninstall');
    expect(again.code).toBe(0);
    expect(again.out).toContain('nothing to remove');
  });

  it('bad usage is exit 2 with the usage; no config file is exit 2 with the next step', async () => {
    const { config } = setup();
    for (const args of [[], ['start'], ['install', 'extra'], ['status', '--force'], ['install', '--name', '../x']]) {
      const result = await service(config, ...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.err).toMatch(/familiar service/);
    }
    const missing = await service(path.join(tempDir(), 'config.yaml'), 'install');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('familiar init');
  });

  it('a system unit goes to /etc/systemd/system and runs as the config file\'s owner', () => {
    expect(unitPlace(true, 'familiar').file).toBe('/etc/systemd/system/familiar.service');
    const unit = unitFile({ system: true, node: '/usr/bin/node', main: '/opt/familiar/dist/main.js', config: '/home/me/familiar/config.yaml', uid: 1000 });
    expect(unit).toContain('User=1000\n');
    expect(unit).toContain('WantedBy=multi-user.target');
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/familiar/dist/main.js start --config /home/me/familiar/config.yaml\n');
  });

  it('escapes what systemd would expand in a path ($, %, quotes)', () => {
    const unit = unitFile({ system: false, node: '/usr/bin/node', main: '/opt/f/dist/main.js', config: '/home/me/100% "$HOME"/config.yaml' });
    expect(unit).toContain('ExecStart=/usr/bin/node /opt/f/dist/main.js start --config "/home/me/100%% \\"$$HOME\\"/config.yaml"\n');
    expect(unit).toContain('WorkingDirectory=/home/me/100%% "$HOME"\n');
  });
});

describeWithTool('systemd-analyze', 'the unit passes systemd-analyze verify', () => {
  function verify(unit: string, name = 'familiar.service'): { status: number | null; output: string } {
    const dir = tempDir();
    const file = path.join(dir, name);
    writeFileSync(file, unit);
    const result = spawnSync('systemd-analyze', ['verify', '--man=no', file], { encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  it('the user unit install writes, and a system unit', async () => {
    const { config } = setup();
    await service(config, 'install');
    const user = verify(readFileSync(path.join(home, 'systemd', 'user', 'familiar.service'), 'utf8'));
    expect(user.output).toBe('');
    expect(user.status).toBe(0);
    const uid = process.getuid?.() ?? 0;
    const system = verify(unitFile({ system: true, node: process.execPath, main: MAIN, config, uid }));
    expect(system.output).toBe('');
    expect(system.status).toBe(0);
  });

  it('verify catches a broken unit (so the checks above can fail)', () => {
    const broken = unitFile({ system: false, node: '/nonexistent/node', main: MAIN, config: '/tmp/config.yaml' });
    const result = verify(broken);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('/nonexistent/node');
  });
});
