import type { AfterHook } from '../tools/call.js';
import { dayOf } from './dates.js';
import { linkedMessageId, mailLink } from './mail-link.js';
import type { NotesServices } from './services.js';
import type { Task } from './task-files.js';
import { matchTask } from './task-match.js';
import type { NotesCommand } from './types.js';

/**
 * `/email-reply TASK text`: answers the mail a task came from. The text is the person's; the reply goes through the
 * model's `email` tool (a turn), so it is approved, audited and threaded as any reply, and recorded on the task.
 * Without text, the model drafts one and shows it before anything is sent.
 */
export function emailReplyCommand(services: NotesServices): NotesCommand {
  return {
    description: 'answer the mail a task came from: /email-reply TASK your text (or no text for a draft)',
    async run({ args }) {
      if (!services.scanner) return 'E-mail is not set up (tools.email in config.yaml), so I cannot answer mail.';
      const [reference = '', ...rest] = splitReference(args);
      if (reference === '') return 'Usage: /email-reply TASK your reply (TASK is its id or words from it; /tasks lists them).';
      const found = matchTask(services.tasks.files, reference);
      if (!found.success) return found.error;
      const messageId = linkedMessageId(found.value.description);
      if (messageId === undefined) return `The task "${found.value.description}" was not made from a mail (it has no mid: link), so there is nothing to answer.`;
      const text = rest.join(' ').trim();
      const task = `the task "${found.value.description}" (${found.value.id ?? found.value.ref})`;
      return {
        turn: {
          text: text !== ''
            ? `Reply to the e-mail of ${task} with exactly this text, using the email tool's reply with message_id "${messageId}":\n\n${text}`
            : `Draft a reply to the e-mail of ${task} (read it with the email tool, message_id "${messageId}"), show me the draft, and send it with reply {message_id} only once I say yes.`,
        },
      };
    },
  };
}

/** `TASK text`: a quoted reference ("call the bank" thanks), an id, or the first word. */
function splitReference(args: string): string[] {
  const trimmed = args.trim();
  const quoted = /^"([^"]+)"\s*([\s\S]*)$/.exec(trimmed);
  if (quoted) return [quoted[1] ?? '', quoted[2] ?? ''];
  const [first = '', ...rest] = trimmed.split(/\s+/);
  return [first, rest.join(' ')];
}

/** After an `email` reply by message_id succeeds, the tasks that link to that message say so on their line. */
export function recordReplies(services: NotesServices): AfterHook {
  return async ({ tool, params, result }) => {
    if (tool !== 'email' || params.action !== 'reply' || !result.success || typeof params.message_id !== 'string') return;
    const link = mailLink(params.message_id);
    const linked: Task[] = services.tasks.files.all().filter((task) => task.description.includes(link));
    const today = dayOf(services.now(), services.timeZone);
    for (const task of linked) {
      const updated = await services.tasks.update(task.id ?? task.ref, { description: `${task.description} ↩ replied ${today}` });
      if (!updated.success) services.log.warn({ task: task.id ?? task.ref, error: updated.error }, 'could not record the reply on the task');
    }
  };
}
