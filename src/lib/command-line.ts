import type { parse as Parse } from 'shell-quote';
import { requireOnUse } from './folded.js';
import type { Result } from './result.js';

/**
 * A command the daemon runs itself (a local speech engine), as its program and arguments. It is written in the config
 * as a list (`[espeak-ng, --stdout]`) or as one line split the way a shell splits words (quotes and backslashes),
 * but it is never run by a shell: pipes, redirections, `;`, globs and `$VARIABLES` are refused, so what the config
 * says is exactly what runs. Contract: never throws.
 */
export function parseCommandLine(command: string | readonly string[]): Result<string[]> {
  if (Array.isArray(command)) {
    const words = command.map(String);
    if (words.length === 0 || words[0]?.trim() === '') return { success: false, error: 'the command is empty' };
    return { success: true, value: words };
  }
  const line = command as string;
  // A variable would be expanded to nothing by the parser, silently: it is reported instead.
  // shell-quote is loaded at the first command line split (a configured speech engine), not with every config.
  const { parse } = requireOnUse<{ parse: typeof Parse }>('shell-quote');
  const entries = parse(line, (name) => ({ variable: name }));
  const words: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      words.push(entry);
      continue;
    }
    if ('variable' in entry) return { success: false, error: `$${entry.variable}: variables are not expanded (the command runs without a shell); write the value itself, or use \${NAME} to take it from the environment when the config is read` };
    if ('comment' in entry) break;
    if ('pattern' in entry) return { success: false, error: `${entry.pattern}: wildcards are not expanded (the command runs without a shell); quote it or name the file` };
    return { success: false, error: `"${entry.op}": the command runs without a shell, so pipes, redirections and ; are not available; put them in a script and name the script` };
  }
  if (words.length === 0 || words[0]?.trim() === '') return { success: false, error: 'the command is empty' };
  return { success: true, value: words };
}
