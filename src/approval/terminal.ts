import type { Interface } from 'node:readline/promises';
import type { ApprovalAnswer, ApprovalPrompter } from './prompter.js';

/**
 * Asks y/N on the terminal's own readline, one question at a time (parallel tool calls queue up).
 * `currentTurn` gives the running turn's signal: Ctrl-C while a question waits counts as no.
 */
export function createTerminalPrompter(rl: Interface, output: NodeJS.WritableStream, currentTurn: () => AbortSignal | undefined = () => undefined): ApprovalPrompter {
  let queue: Promise<unknown> = Promise.resolve();
  const askOne = async (text: string, timeoutMs: number): Promise<ApprovalAnswer> => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const turn = currentTurn();
    const signal = turn ? AbortSignal.any([timeout, turn]) : timeout;
    output.write(`\n${text}\n`);
    try {
      const answer = (await rl.question('approve? [y/N] ', { signal })).trim().toLowerCase();
      return answer === 'y' || answer === 'yes' ? 'approve' : 'deny';
    } catch {
      // Timed out, Ctrl-C, or input closed: never an approval.
      output.write('\n');
      return timeout.aborted ? 'timeout' : 'deny';
    }
  };
  return {
    ask(prompt) {
      const next = queue.then(() => askOne(prompt.text, prompt.timeoutMs));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}
