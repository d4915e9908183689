import type { JobView, SchedulerAccess } from '../tools/context.js';
import type { Scheduler } from './scheduler.js';
import type { Job } from './types.js';

/** The scheduler as any tool may use it (the ToolContext's `scheduler`): jobs made in a chat belong to that chat. */
export function schedulerAccess(scheduler: Scheduler): SchedulerAccess {
  return {
    timeZone: scheduler.timeZone,
    create(request) {
      const created = scheduler.create({
        ...request,
        source: request.origin === undefined || request.origin.channel === 'cli' ? 'cli' : 'chat',
      });
      return created.success ? { success: true, value: view(created.value) } : { success: false, error: created.error };
    },
    list(origin) {
      return scheduler
        .list()
        .filter((job) => origin === undefined || (job.origin?.channel === origin.channel && job.origin.chatId === origin.chatId))
        .map(view);
    },
    remove: (id) => scheduler.remove(id),
  };
}

function view(job: Job): JobView {
  return { id: job.id, kind: job.kind, spec: job.spec, prompt: job.prompt, enabled: job.enabled, nextRunAt: job.nextRunAt, origin: job.origin };
}
