import type { ReminderActions, SnoozeChoice } from './reminder-actions.js';
import type { NotesCommand } from './types.js';

const SNOOZE_USAGE = 'Usage: /snooze [10m|1h|tomorrow] (10m when left out) snoozes the last reminder sent here; /done marks it done.';

/** "10m", "10 min", "1h", "1 hour", "tomorrow": the three snoozes the buttons offer. */
function choiceOf(args: string): SnoozeChoice | undefined {
  const value = args.trim().toLowerCase().replace(/\s+/g, '');
  if (value === '' || /^10(?:m|min|mins|minutes?)?$/.test(value)) return '10m';
  if (/^(?:1h|1hr|1hour|anhour|hour|60m|60min)$/.test(value)) return '1h';
  if (value === 'tomorrow') return 'tomorrow';
  return undefined;
}

/**
 * `/snooze [10m|1h|tomorrow]` and `/done`: the buttons of the last reminder delivered to this chat, as commands
 * (the terminal has no buttons; it is the owner's and acts on the last reminder delivered anywhere).
 */
export function createReminderCommands(actions: ReminderActions): Map<string, NotesCommand> {
  const snooze: NotesCommand = {
    description: 'snooze the last reminder: /snooze 10m, /snooze 1h, /snooze tomorrow',
    async run({ channel, chatId, userId, args }) {
      const choice = choiceOf(args);
      if (!choice) return SNOOZE_USAGE;
      const last = actions.last({ channel, chatId, userId });
      if (!last) return 'No reminder has been sent here yet.';
      const answered = await actions.act(last, choice);
      if (!answered.success) return answered.error;
      return `${answered.value.outcome ?? answered.value.notice} (${quote(last.text)})`;
    },
  };
  const done: NotesCommand = {
    description: 'mark the last reminder done (and its task, if it has one)',
    async run({ channel, chatId, userId }) {
      const last = actions.last({ channel, chatId, userId });
      if (!last) return 'No reminder has been sent here yet.';
      const answered = await actions.act(last, 'done');
      if (!answered.success) return answered.error;
      return `${answered.value.outcome ?? answered.value.notice} (${quote(last.text)})`;
    },
  };
  return new Map([['snooze', snooze], ['done', done]]);
}

function quote(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return `"${line.length > 80 ? `${line.slice(0, 79)}…` : line}"`;
}
