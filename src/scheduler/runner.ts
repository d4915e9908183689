import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { wrapExternal } from '../tools/external.js';
import type { CallOrigin } from '../tools/types.js';
import type { Delivery } from '../delivery/types.js';
import type { StartTurn, TurnOutcome } from '../turns/types.js';
import type { JobExecutor } from './scheduler.js';
import type { Job, RunOutcome, TriggerEvent } from './types.js';

export interface JobRunnerDeps {
  config: Pick<Config, 'routes'>;
  startTurn: StartTurn;
  delivery: Delivery;
  log: Logger;
}

/** Where a job's result goes: its explicit target (config `deliver_to`), else the chat that created it, else `scheduler.default_chat`. */
export function deliveryTarget(delivery: Delivery, job: Job): string | undefined {
  return delivery.targetFor(job.origin, job.deliverTo);
}

/**
 * Runs jobs for the scheduler: a reminder is delivered as it is; an agent job runs one unattended turn in its
 * own conversation (`job-<id>`), not through a chat's queue, and its answer is delivered.
 */
export function createJobExecutor(deps: JobRunnerDeps): JobExecutor {
  const { delivery, log } = deps;
  return async (job, run, signal) => {
    const target = deliveryTarget(delivery, job);
    /**
     * Sends the text; a result that cannot be delivered stays in the ledger with the reason. `outside`: the sources
     * the text was made from (a reminder written while reading a page; a run that read mail), said on delivery.
     */
    const deliver = async (outcome: RunOutcome, text: string, artifacts: TurnOutcome['artifacts'] = [], outside: readonly string[] = job.sources): Promise<RunOutcome> => {
      const context = {
        kind: job.kind === 'reminder' ? 'reminder' as const : 'job' as const, id: job.id, outside,
        // The person's own prompt: its links stay live (not a tainted job's, which a page may have written).
        ...(job.sources.length === 0 ? { personText: job.prompt } : {}),
      };
      const delivered = await delivery.deliver(target, { text, ...(artifacts.length > 0 ? { artifacts } : {}) }, context);
      const shown = { shown: delivery.render(text, context) };
      if (delivered.deliveredTo !== undefined) return { ...outcome, ...shown, deliveredTo: delivered.deliveredTo };
      return { ...outcome, ...shown, error: outcome.error ? `${outcome.error}; ${delivered.error}` : delivered.error };
    };

    if (job.kind === 'reminder') return deliver({ status: 'ok', output: job.prompt }, `⏰ ${job.prompt}`);

    const origin: CallOrigin = job.origin ?? { channel: 'scheduler', chatId: job.id };
    // A route for channel "scheduler" (chat_id = a job id, or none for all jobs) picks the agent of jobs;
    // else the agent of the chat that made the job.
    const routed = deps.config.routes.some((route) => route.channel === 'scheduler' && (route.chat_id === undefined || route.chat_id === job.id));
    let result: TurnOutcome;
    try {
      // A job made while outside content was in play runs tainted, its prompt presented as outside content; a
      // trigger's payload is always outside content (a webhook's sender, a mail's), and so is its run.
      const taint = [...job.sources, ...(run.event ? [run.event.source] : [])];
      const prompt = job.sources.length > 0 ? wrapExternal(`job ${job.id} (made while reading ${job.sources.join(', ')})`, job.prompt) : job.prompt;
      result = await deps.startTurn({
        conversationId: `job-${job.id}`, text: run.event ? `${prompt}\n\n${triggerText(run.event)}` : prompt,
        origin, source: 'job', signal,
        ...(job.person !== undefined ? { person: job.person } : {}),
        ...(taint.length > 0 ? { taint } : {}),
        ...(routed ? { route: { channel: 'scheduler', chatId: job.id } } : {}),
        unattended: { owner: 'job', id: job.id, approve: job.approve },
        systemExtra: `This is the scheduled job "${job.id}" (${RUN_WORDS[run.trigger]}), running unattended: nobody can answer questions. Do the task and reply with the result for the person.`,
      });
    } catch (error) {
      log.error({ err: error, jobId: job.id }, 'job turn threw');
      return deliver({ status: 'failed', output: '', error: errorMessage(error) }, failureNotice(job, errorMessage(error)));
    }
    if (signal.aborted) {
      const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
      if (!timedOut) return { status: 'interrupted', output: result.text, error: 'the daemon shut down during the run' };
      const reason = (signal.reason as DOMException).message;
      return deliver({ status: 'failed', output: result.text, error: reason }, failureNotice(job, reason));
    }
    if (result.status !== 'ok') {
      const error = result.error ?? result.text;
      return deliver({ status: 'failed', output: result.text, error }, failureNotice(job, error));
    }
    const outcome: RunOutcome = {
      status: 'ok', output: result.text,
      ...(result.denied.length > 0 ? { error: `denied: ${result.denied.join(', ')} (not in the job's approve list)` } : {}),
    };
    return deliver(outcome, result.text, result.artifacts, result.taint);
  };
}

const RUN_WORDS = { schedule: 'on schedule', catch_up: 'a late catch-up run', manual: 'run by hand', trigger: 'run by an inbound trigger' } as const;

/** The trigger as the job's turn reads it: its summary and payload, wrapped as outside content. */
function triggerText(event: TriggerEvent): string {
  return `The trigger (${event.source}, received ${new Date(event.receivedAt).toISOString()}):\n${wrapExternal(`trigger ${event.source}`, `${event.summary}\n\n${event.payload}`)}`;
}

function failureNotice(job: Job, error: string): string {
  return `⚠ Scheduled job "${job.id}" failed: ${error.slice(0, 300)}`;
}
