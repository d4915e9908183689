import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { COMMAND_TREE, optionsOf } from '../../src/cli/spec.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { captureIo } from '../helpers/io.js';

const run = async (...args: string[]) => {
  const io = captureIo();
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
};

describe('the command line follows the conventions', () => {
  it('prints the version for --version and -V', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await run('--version')).toEqual({ code: 0, out: `${pkg.version}\n`, err: '' });
    expect(await run('-V')).toEqual({ code: 0, out: `${pkg.version}\n`, err: '' });
  });

  it('gives each command its own help: familiar help ask, ask --help, jobs add --help, init --help', async () => {
    const viaHelp = await run('help', 'ask');
    const viaFlag = await run('ask', '--help');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.out).toBe(viaFlag.out);
    expect(viaHelp.out).toMatch(/^Usage: familiar ask \[options\] "text"/);
    expect(viaHelp.out).toContain('--conversation <NAME>');
    expect(viaHelp.out).not.toContain('jobs');
    const add = await run('jobs', 'add', '--help');
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/^Usage: familiar jobs add/);
    expect(add.out).toContain('--catch-up <POLICY>');
    expect((await run('help', 'jobs', 'add')).out).toBe(add.out);
    const init = await run('init', '--help');
    expect(init.out).toContain('--telegram-token <TOKEN>');
    expect(init.out).toContain('--no-sandbox');
    // The global options are listed under every command's help.
    expect(add.out).toContain('--config <FILE>');
  });

  it('prints the list of commands for familiar help and --help (exit 0), and for no command at all (exit 2)', async () => {
    const help = await run('help');
    expect(help.code).toBe(0);
    for (const command of COMMAND_TREE) expect(help.out).toContain(`  ${command.name}`);
    expect((await run('--help')).out).toBe(help.out);
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.out).toBe(help.out);
  });

  it('suggests the nearest command or option and exits 2', async () => {
    expect(await run('jbos', 'list')).toEqual({ code: 2, out: '', err: 'familiar: unknown command \'jbos\' — did you mean jobs?\nRun "familiar help" for usage.\n' });
    const option = await run('jobs', 'list', '--alll');
    expect(option).toEqual({ code: 2, out: '', err: 'familiar jobs list: unknown option \'--alll\' — did you mean --all?\nRun "familiar help jobs list" for usage.\n' });
    expect((await run('ask', '--conversaton', 'x', 'hi')).err).toMatch(/unknown option '--conversaton' — did you mean --conversation\?/);
    expect((await run('jobs', 'lst')).err).toMatch(/^familiar jobs: unknown command 'lst' — did you mean list\?/);
    expect((await run('help', 'jbos')).err).toMatch(/did you mean jobs\?/);
  });

  it('keeps an unknown command unknown with --help: exit 2 and the did-you-mean, not the general help', async () => {
    expect(await run('jbos', '--help')).toEqual({ code: 2, out: '', err: 'familiar: unknown command \'jbos\' — did you mean jobs?\nRun "familiar help" for usage.\n' });
    expect((await run('jobs', 'lst', '-h')).err).toMatch(/^familiar jobs: unknown command 'lst' — did you mean list\?/);
  });

  it('keeps global options anywhere on the line, and treats what follows -- as text', async () => {
    const help = await run('--json', 'jobs', '--log-level', 'silent', 'add', '--help', '--config', 'x.yaml');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: familiar jobs add/);
    expect((await run('completion', '--', '--bash')).err).toMatch(/no completion for "--bash"/);
  });

  it('shows a command with subcommands named alone its help on stderr, exit 2 (bad usage, as before)', async () => {
    const jobs = await run('jobs');
    expect(jobs.code).toBe(2);
    expect(jobs.err).toMatch(/^Usage: familiar jobs <command>/);
  });

  it('declares every command it can run, and runs every command it declares', () => {
    expect(COMMAND_TREE.map((command) => command.name).filter((name) => name !== 'help').sort()).toEqual([...COMMANDS.keys()].sort());
  });

  it("parses each command's arguments with the declarations its help shows", () => {
    // optionsOf is what the commands hand to parseArgs: every declared option is accepted, nothing else.
    const jobs = optionsOf('jobs');
    expect(Object.keys(jobs).sort()).toEqual(['all', 'at', 'catch-up', 'cron', 'deliver-to', 'id', 'limit', 'remind', 'when']);
    expect(parseArgs({ args: ['add', '--cron', '0 8 * * *', '--catch-up=skip', 'x'], options: jobs, allowPositionals: true }).values).toEqual({ cron: '0 8 * * *', 'catch-up': 'skip' });
    expect(() => parseArgs({ args: ['--frob'], options: jobs, allowPositionals: true, strict: true })).toThrow(/Unknown option '--frob'/);
    // An option name takes a value everywhere or nowhere (completion skips a value after it by its name).
    const kinds = new Map<string, boolean>();
    const walk = (commands: typeof COMMAND_TREE): void => {
      for (const command of commands) {
        for (const option of command.options ?? []) {
          const takes = option.value !== undefined;
          expect(kinds.get(option.name) ?? takes, `--${option.name}`).toBe(takes);
          kinds.set(option.name, takes);
        }
        walk(command.commands ?? []);
      }
    };
    walk(COMMAND_TREE);
  });
});
