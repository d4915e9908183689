import type { OptionSpec } from '../lib/cli-options.js';
import { COMMAND_TREE, GLOBAL_OPTIONS, type CommandSpec } from './spec.js';

/**
 * Shell completion scripts made from the command tree (`spec.ts`), so they complete exactly the commands,
 * subcommands and options the parser accepts. They are static: completing a word runs no Node process (a
 * `familiar` start costs a few hundred milliseconds, too slow for every Tab).
 *
 * All three walk the words before the cursor the same way: a word that extends the command path (`jobs`, then
 * `add`) descends; an option that takes a value skips its value; the first other word ends the path. Then they offer
 * the value of the option just typed (its choices, file or folder names), else the path's subcommands and options.
 */
export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

interface Node {
  /** `''` for the top, `jobs`, `jobs add`. */
  path: string;
  spec: CommandSpec | undefined;
  subcommands: readonly CommandSpec[];
  options: readonly OptionSpec[];
}

function nodes(): Node[] {
  const out: Node[] = [{ path: '', spec: undefined, subcommands: COMMAND_TREE, options: [] }];
  const walk = (commands: readonly CommandSpec[], prefix: string): void => {
    for (const command of commands) {
      const path = prefix ? `${prefix} ${command.name}` : command.name;
      out.push({ path, spec: command, subcommands: command.commands ?? [], options: command.options ?? [] });
      walk(command.commands ?? [], path);
    }
  };
  walk(COMMAND_TREE, '');
  return out;
}

/** Every option that takes a value, by its spellings (`--config`, `-c`). */
function valueOptions(): OptionSpec[] {
  const all = [...GLOBAL_OPTIONS, ...nodes().flatMap((node) => node.options)];
  const unique = new Map<string, OptionSpec>();
  for (const option of all) if (option.value !== undefined && !unique.has(option.name)) unique.set(option.name, option);
  return [...unique.values()];
}

const spellings = (option: OptionSpec): string[] => [`--${option.name}`, ...(option.short !== undefined ? [`-${option.short}`] : [])];
const globalWords = (): string[] => [...GLOBAL_OPTIONS.flatMap((option) => [`--${option.name}`]), '--help'];

/** What a node offers: its subcommands, the choices of its first argument, its options and the global ones. */
function wordsOf(node: Node): string[] {
  const words = [...node.subcommands.map((command) => command.name), ...(node.spec?.choices ?? []), ...node.options.map((option) => `--${option.name}`)];
  if (node.path === '') words.push('--version');
  return [...words, ...globalWords()];
}

export function completionScript(shell: Shell): string {
  if (shell === 'bash') return bashScript();
  if (shell === 'zsh') return zshScript();
  return fishScript();
}

/** `case` arms of a shell function: the option's values, `__file__`, `__dir__` or `__none__` (a value, nothing to offer). */
function valueArms(indent: string): string {
  return valueOptions().map((option) => {
    const values = option.choices ? option.choices.join(' ') : option.complete === 'file' ? '__file__' : option.complete === 'dir' ? '__dir__' : '__none__';
    return `${indent}${spellings(option).join('|')}) echo "${values}" ;;`;
  }).join('\n');
}

function pathArms(indent: string): string {
  return nodes().map((node) => `${indent}"${node.path}") echo "${wordsOf(node).join(' ')}" ;;`).join('\n');
}

/** The shared walk, in POSIX-ish shell that bash and zsh both run (zsh arrays start at 1, hence `first`). */
function walkFunction(name: string): string {
  return `${name}() {
  # $1: the index of the first word after "familiar"; $2: the index of the word being completed; $3…: the words
  # (bash counts from 0, zsh from 1). Not "path": in zsh that is the array tied to PATH.
  local first=$1 current=$2 index skip=0 ended=0 word next cmdpath=""
  shift 2
  local -a all
  all=("$@")
  for ((index = first; index < current; index++)); do
    word=\${all[index]}
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      --) break ;;
      --*=*) ;;
      -*) [[ "$(_familiar_values "$word")" != "" ]] && skip=1 ;;
      *)
        ((ended)) && continue
        next="\${cmdpath:+$cmdpath }$word"
        if [[ -n "$(_familiar_words "$next")" ]]; then cmdpath=$next; else ended=1; fi
        ;;
    esac
  done
  printf '%s\\n' "$cmdpath"
}`;
}

function sharedFunctions(): string {
  return `_familiar_values() {
  case "$1" in
${valueArms('    ')}
  esac
}

_familiar_words() {
  case "$1" in
${pathArms('    ')}
  esac
}`;
}

function bashScript(): string {
  return `# bash completion for familiar. Load it with: source <(familiar completion bash)
# or save it as /etc/bash_completion.d/familiar (or ~/.local/share/bash-completion/completions/familiar).
${sharedFunctions()}

${walkFunction('_familiar_path')}

_familiar() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 1)) && prev=\${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()
  local values
  values=$(_familiar_values "$prev")
  if [[ -n "$values" ]]; then
    case "$values" in
      __file__) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
      __dir__) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
      __none__) ;;
      *) mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur") ;;
    esac
    return 0
  fi
  local cmdpath
  cmdpath=$(_familiar_path 1 "$COMP_CWORD" "\${COMP_WORDS[@]}")
  mapfile -t COMPREPLY < <(compgen -W "$(_familiar_words "$cmdpath")" -- "$cur")
  return 0
}

complete -o default -F _familiar familiar
`;
}

function zshScript(): string {
  return `#compdef familiar
# zsh completion for familiar. Save it on your fpath: familiar completion zsh > "\${fpath[1]}/_familiar"
# (then restart zsh), or load it in a running shell after compinit: source <(familiar completion zsh)
${sharedFunctions()}

${walkFunction('_familiar_path')}

_familiar() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  local values
  values=$(_familiar_values "$prev")
  if [[ -n "$values" ]]; then
    case "$values" in
      __file__) _files ;;
      __dir__) _files -/ ;;
      __none__) ;;
      *) compadd -- \${=values} ;;
    esac
    return 0
  fi
  # Not "path": in zsh that is the array tied to PATH.
  local cmdpath
  cmdpath=$(_familiar_path 2 "$CURRENT" "\${words[@]}")
  compadd -- \${=$(_familiar_words "$cmdpath")}
}

if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _familiar "$@"
else
  compdef _familiar familiar
fi
`;
}

const fishQuote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

function fishScript(): string {
  const all = nodes();
  const lines: string[] = [
    '# fish completion for familiar. Save it: familiar completion fish > ~/.config/fish/completions/familiar.fish',
    `set -g __familiar_paths ${all.filter((node) => node.path !== '').map((node) => fishQuote(node.path)).join(' ')}`,
    `set -g __familiar_value_options ${valueOptions().flatMap(spellings).map(fishQuote).join(' ')}`,
    '',
    '# The command path before the cursor (`jobs add`), walked as the bash and zsh scripts do.',
    'function __familiar_path',
    '    set -l words (commandline -opc)',
    '    set -e words[1]',
    "    set -l path ''",
    '    set -l skip 0',
    '    set -l done 0',
    '    for word in $words',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $word',
    "            case '--'",
    '                break',
    "            case '--*=*'",
    "            case '-*'",
    '                if contains -- $word $__familiar_value_options',
    '                    set skip 1',
    '                end',
    "            case '*'",
    '                if test $done = 1',
    '                    continue',
    '                end',
    '                set -l next (string trim -- "$path $word")',
    '                if contains -- $next $__familiar_paths',
    '                    set path $next',
    '                else',
    '                    set done 1',
    '                end',
    '        end',
    '    end',
    '    echo $path',
    'end',
    '',
    'function __familiar_at',
    '    test (__familiar_path) = "$argv[1]"',
    'end',
    '',
    'complete -c familiar -f',
  ];
  const optionLine = (option: OptionSpec, condition?: string): string => {
    const parts = ['complete -c familiar'];
    if (condition !== undefined) parts.push(`-n ${fishQuote(`__familiar_at ${fishQuote(condition)}`)}`);
    if (option.short !== undefined) parts.push(`-s ${option.short}`);
    parts.push(`-l ${option.name}`);
    // -r -F: a value, file names offered; -x: a value, only the choices (or nothing) offered.
    if (option.value !== undefined) {
      if (option.complete === 'file' || option.complete === 'dir') parts.push('-r -F');
      else parts.push('-x', ...(option.choices ? [`-a ${fishQuote(option.choices.join(' '))}`] : []));
    }
    parts.push(`-d ${fishQuote(option.description)}`);
    return parts.join(' ');
  };
  for (const option of GLOBAL_OPTIONS) lines.push(optionLine(option));
  lines.push(`complete -c familiar -n ${fishQuote("__familiar_at ''")} -s V -l version -d 'the version'`);
  lines.push("complete -c familiar -s h -l help -d 'help for this command'");
  for (const node of all) {
    const at = `__familiar_at ${fishQuote(node.path)}`;
    for (const command of node.subcommands) lines.push(`complete -c familiar -n ${fishQuote(at)} -a ${command.name} -d ${fishQuote(command.summary)}`);
    for (const choice of node.spec?.choices ?? []) lines.push(`complete -c familiar -n ${fishQuote(at)} -a ${choice}`);
    for (const option of node.options) lines.push(optionLine(option, node.path));
  }
  return `${lines.join('\n')}\n`;
}
