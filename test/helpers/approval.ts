import type { Daemon as App } from '../../src/daemon.js';
import type { ApprovalHandler } from '../../src/tools/call.js';
import type { ApprovalAnswer, ApprovalPrompt, ApprovalPrompter } from '../../src/approval/prompter.js';

/** A prompter that records every question and answers with `answer` (or never, for 'hang'). */
export function recordingPrompter(answer: ApprovalAnswer | 'hang' | ((prompt: ApprovalPrompt) => ApprovalAnswer)): ApprovalPrompter & { prompts: ApprovalPrompt[] } {
  const prompts: ApprovalPrompt[] = [];
  return {
    prompts,
    async ask(prompt) {
      prompts.push(prompt);
      if (answer === 'hang') return new Promise<ApprovalAnswer>(() => undefined);
      return typeof answer === 'function' ? answer(prompt) : answer;
    },
  };
}

/** The turn's approval handler asking through `prompter` (the app's approval gate must be installed). */
export function askWith(app: App, prompter: ApprovalPrompter): ApprovalHandler {
  const approvals = app.approvals;
  if (!approvals) throw new Error('the approval gate is not installed');
  return approvals.handlerFor(prompter);
}
