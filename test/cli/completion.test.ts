import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { completionScript } from '../../src/cli/completion-scripts.js';
import { runCli } from '../../src/cli/run.js';
import { tempDir } from '../helpers/app.js';
import { captureIo } from '../helpers/io.js';
import { describeWithTool } from '../helpers/tools.js';

// Each shell loads the script `familiar completion SHELL` prints and completes lines with it, for real.
const dir = tempDir();
const script = (shell: 'bash' | 'zsh' | 'fish'): string => {
  const file = path.join(dir, `familiar.${shell}`);
  writeFileSync(file, completionScript(shell));
  return file;
};

/** The words bash offers for a command line whose last word is being typed. */
function bash(...words: string[]): string[] {
  const file = script('bash');
  const body = `source ${JSON.stringify(file)}; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _familiar; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '-c', body], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** zsh: the candidates the script hands to compadd (compadd itself filters by the typed prefix). */
function zsh(...words: string[]): string[] {
  const file = script('zsh');
  const prefix = words.at(-1) ?? '';
  const body = [
    'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }',
    '_files() { print -r -- __files__; }',
    'compdef() { :; }',
    `source ${JSON.stringify(file)}`,
    `words=(${words.map((word) => `'${word}'`).join(' ')}); CURRENT=${words.length}`,
    '_familiar',
  ].join('\n');
  return execFileSync('zsh', ['-f', '-c', body], { encoding: 'utf8' }).split('\n').filter((word) => word !== '' && word.startsWith(prefix));
}

/** fish's own completion engine over the script: `complete -C LINE`. */
function fish(line: string): string[] {
  const file = script('fish');
  return execFileSync('fish', ['--no-config', '-c', `source ${JSON.stringify(file)}; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8' })
    .split('\n').filter(Boolean).map((entry) => entry.split('\t')[0] ?? '');
}

describe('familiar completion', () => {
  it('prints a script for bash, zsh and fish, and refuses another shell with exit 2', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const io = captureIo();
      expect(await runCli(['completion', shell], io)).toBe(0);
      expect(io.out()).toContain('familiar');
    }
    const io = captureIo();
    expect(await runCli(['completion', 'tcsh'], io)).toBe(2);
    expect(io.err()).toBe('familiar completion: no completion for "tcsh": bash, zsh or fish (familiar help completion says how to load it)\n');
  });
});

describe('the bash script, in bash', () => {
  it('parses', () => {
    execFileSync('bash', ['-n', script('bash')]);
  });

  it('completes commands, subcommands and their options', () => {
    expect(bash('familiar', 'jo')).toEqual(['jobs']);
    expect(bash('familiar', 'jobs', 'r')).toEqual(['remove', 'resume', 'run', 'runs']);
    expect(bash('familiar', 'jobs', 'add', '--c')).toEqual(['--cron', '--catch-up', '--config']);
    expect(bash('familiar', 'service', 'install', '--')).toEqual(expect.arrayContaining(['--system', '--force', '--name', '--json']));
  });

  it('completes option values and skips them when finding the command', () => {
    expect(bash('familiar', 'jobs', 'add', '--catch-up', '')).toEqual(['once', 'skip']);
    expect(bash('familiar', '--log-level', 'w')).toEqual(['warn']);
    expect(bash('familiar', '--config', 'x.yaml', 'logs', '--')).toEqual(expect.arrayContaining(['--follow', '--level', '--since']));
    expect(bash('familiar', 'completion', '')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    // After an argument that is not a subcommand, the path stays: `ask "hello" --n` offers ask's options.
    expect(bash('familiar', 'ask', 'hello', '--n')).toEqual(['--new']);
  });
});

describeWithTool('zsh', 'the zsh script, in zsh', () => {
  it('parses', () => {
    execFileSync('zsh', ['-n', script('zsh')]);
  });

  it('completes commands, subcommands, options and option values', () => {
    expect(zsh('familiar', 'jo')).toEqual(['jobs']);
    expect(zsh('familiar', 'jobs', 'add', '--c')).toEqual(['--cron', '--catch-up', '--config']);
    expect(zsh('familiar', '--config', 'x.yaml', 'config', '')).toEqual(expect.arrayContaining(['validate', 'get', 'set']));
    expect(zsh('familiar', 'logs', '--level', '')).toEqual(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
    expect(zsh('familiar', '--config', '')).toEqual(['__files__']);
  });

  it('loads through compinit from fpath, as the help says', () => {
    const fpath = tempDir();
    writeFileSync(path.join(fpath, '_familiar'), completionScript('zsh'));
    const out = execFileSync('zsh', ['-f', '-c', `fpath=(${fpath} $fpath); autoload -Uz compinit; compinit -u -D; print -r -- $_comps[familiar]`], { encoding: 'utf8' });
    expect(out.trim()).toBe('_familiar');
  });
});

describeWithTool('fish', 'the fish script, in fish', () => {
  it('parses', () => {
    execFileSync('fish', ['--no-config', '-n', script('fish')]);
  });

  it('completes commands with their descriptions, subcommands, options and values', () => {
    expect(fish('familiar jo')).toEqual(['jobs']);
    expect(fish('familiar --config x.yaml jobs ru')).toEqual(['run', 'runs']);
    expect(fish('familiar jobs add --c')).toEqual(expect.arrayContaining(['--cron', '--catch-up', '--config']));
    expect(fish('familiar logs --level ')).toEqual(['debug', 'error', 'fatal', 'info', 'trace', 'warn']);
    expect(fish('familiar service ')).toEqual(['install', 'status', 'uninstall']);
  });
});
