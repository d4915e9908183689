import type { App } from '../app.js';
import type { TurnResult } from '../agent/agent.js';
import { resolveAgent } from '../agent/profiles.js';
import { formatTarget, parseTarget } from '../channels/hub.js';
import { errorMessage } from '../errors.js';
import { createPolicy, intersectPolicies, type ToolPolicy } from '../tools/policy.js';
import type { ApprovalHandler } from '../tools/registry.js';
import type { Artifact, CallOrigin } from '../tools/types.js';
import type { JobExecutor } from './scheduler.js';
import type { Job, RunOutcome } from './types.js';

/** Channels that are a person's terminal, not a chat a result can be sent to later. */
const UNDELIVERABLE = new Set(['cli', 'scheduler']);

/**
 * Where a job's result goes: its explicit target (config `deliver_to`), else the chat that created it,
 * else `scheduler.default_chat`. Never another chat: a job from Telegram chat A is never sent to chat B.
 */
export function deliveryTarget(job: Job, defaultChat: string | undefined): string | undefined {
  if (job.deliverTo !== undefined) return job.deliverTo;
  if (job.origin && !UNDELIVERABLE.has(job.origin.channel)) return formatTarget(job.origin);
  return defaultChat;
}

/** Tools an unattended run may use: `scheduler.unattended_tools`, else every tool whose fixed risk is not high. */
export function unattendedPolicy(app: App): ToolPolicy {
  const configured = app.config.scheduler.unattended_tools;
  if (configured !== undefined) return createPolicy(configured);
  return {
    description: 'every tool that is not high-risk',
    allows: (tool) => app.tools.get(tool.name)?.tool.risk !== 'high',
  };
}

/**
 * Runs jobs for the scheduler: a reminder is delivered as it is; an agent job runs one unattended turn
 * in its own conversation (`job-<id>`), not through a chat's queue, and its answer is delivered.
 */
export function createJobExecutor(app: App, options: { channelWaitMs: () => number }): JobExecutor {
  const log = app.log.child({ component: 'scheduler' });
  return async (job, run, signal) => {
    const target = deliveryTarget(job, app.config.scheduler.default_chat);
    /** Sends the text; a result that cannot be delivered stays in the ledger and is logged with the reason. */
    const deliver = async (outcome: RunOutcome, text: string, artifacts: Artifact[] = []): Promise<RunOutcome> => {
      if (target === undefined) {
        log.warn({ jobId: job.id, result: text.slice(0, 2000) }, 'job result not delivered: the job has no chat and scheduler.default_chat is not set');
        return { ...outcome, error: joinErrors(outcome.error, 'not delivered: no chat (set scheduler.default_chat)') };
      }
      try {
        await waitForChannel(app, target, options.channelWaitMs());
        await app.channels.deliver(target, { text, ...(artifacts.length > 0 ? { artifacts } : {}) });
        return { ...outcome, deliveredTo: target };
      } catch (error) {
        log.warn({ err: error, jobId: job.id, target, result: text.slice(0, 2000) }, 'job result could not be delivered');
        return { ...outcome, error: joinErrors(outcome.error, `not delivered to ${target}: ${errorMessage(error)}`) };
      }
    };

    if (job.kind === 'reminder') return deliver({ status: 'ok', output: job.prompt }, `⏰ ${job.prompt}`);

    const origin: CallOrigin = job.origin ?? { channel: 'scheduler', chatId: job.id };
    const conversationId = app.conversations.ensure(`job-${job.id}`, origin.channel, origin.chatId);
    // A route for channel "scheduler" (chat_id = a job id, or none for all jobs) picks the agent of jobs;
    // else the agent of the chat that made the job. Its tools intersect the unattended policy.
    const routed = app.config.routes.some((route) => route.channel === 'scheduler' && (route.chat_id === undefined || route.chat_id === job.id));
    const profile = resolveAgent(app.config, routed ? { channel: 'scheduler', chatId: job.id } : origin);
    const denied = new Set<string>();
    const approve: ApprovalHandler = async (request) => {
      if (job.approve.includes(request.tool)) return { approved: true, by: `job ${job.id} approve list` };
      denied.add(request.tool);
      return { approved: false, reason: `unattended job "${job.id}" may not call high-risk ${request.tool}; add it to the job's approve list to allow it` };
    };
    let result: TurnResult;
    try {
      result = await app.agent.runTurn({
        conversationId, text: job.prompt, origin, source: 'job', unattended: true, signal, approve,
        policy: intersectPolicies(profile?.policy, unattendedPolicy(app)),
        ...(profile?.persona !== undefined ? { persona: profile.persona } : {}),
        ...(profile?.model !== undefined ? { model: profile.model } : {}),
        systemExtra: `This is the scheduled job "${job.id}" (${run.trigger === 'catch_up' ? 'a late catch-up run' : 'on schedule'}), running unattended: nobody can answer questions. Do the task and reply with the result for the person.`,
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
    const names = [...denied].join(', ');
    const note = denied.size > 0 ? `\n\n(Not done: ${names} needs approval, and nobody can approve in a scheduled run; add it to the job's approve list to allow it.)` : '';
    const outcome: RunOutcome = { status: 'ok', output: result.text + note, ...(denied.size > 0 ? { error: `denied: ${names} (not in the job's approve list)` } : {}) };
    return deliver(outcome, result.text + note, result.artifacts);
  };
}

/** A channel still starting (or reconnecting) gets a little time before delivery counts as failed. */
async function waitForChannel(app: App, target: string, waitMs: number): Promise<void> {
  const channel = parseTarget(target).channel;
  const deadline = Date.now() + waitMs;
  while (app.channels.get(channel) === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function failureNotice(job: Job, error: string): string {
  return `⚠ Scheduled job "${job.id}" failed: ${error.slice(0, 300)}`;
}

function joinErrors(first: string | undefined, second: string): string {
  return first ? `${first}; ${second}` : second;
}
