import { withCallScope } from '../lib/call-scope.js';
import { currentZone } from '../lib/person-scope.js';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { ChatMessage } from '../llm/types.js';
import { addProposals, chatKey } from './email-tool.js';
import { formatProposals } from './email-scan.js';
import { emailReplyCommand } from './mail-reply.js';
import { tasksByDue, taskForChat } from './format.js';
import { planningReview } from './goal-tools.js';
import type { NotesServices } from './services.js';
import { parseTaskText } from './task-text.js';
import { localTimestamp } from './dates.js';
import type { ChatOrigin, NotesCommand } from './types.js';
import { pageForModel, savePage } from './web-tools.js';
import { vouchedBy } from '../net/addresses.js';
import type { Vouched } from '../tools/effects.js';

/** What the chat commands need beyond the part's services: the conversation around them. */
export interface ConversationAccess {
  /** Runs one agent turn for the chat, through its queue (`/plan`); resolves with the answer. */
  converse?: (input: { text: string; origin: ChatOrigin; conversationId: string }) => Promise<{ text: string }>;
  /** The assistant's last answer in a conversation (`/save` with nothing after it). */
  lastAnswer?: (conversationId: string) => { text: string; sources: readonly string[] } | undefined;
  /**
   * Adds messages to a conversation's history (`/scrape` puts the page there for the next question); `sources` label
   * each message with the outside sources it holds (undefined: the person's own).
   */
  remember?: (conversationId: string, turnId: string, messages: ChatMessage[], labels: { sources: ReadonlyArray<readonly string[] | undefined>; vouched?: ReadonlyArray<Vouched | undefined> }) => void;
}

const SCRAPE_PREVIEW_CHARS = 3000;
const URL_ONLY = /^https?:\/\/\S+$/i;

/** `/save`, `/task`, `/tasks`, `/plan`, `/scrape`, `/email`, `/email-reply`: answered without an LLM call, except `/plan` and `/email-reply`. */
export function createNotesCommands(services: NotesServices, access: ConversationAccess): Map<string, NotesCommand> {
  return new Map<string, NotesCommand>([
    ['task', taskCommand(services)],
    ['tasks', tasksCommand(services)],
    ['save', saveCommand(services, access)],
    ['scrape', scrapeCommand(services, access)],
    ['plan', planCommand(services, access)],
    ['email', emailCommand(services)],
    ['email-reply', emailReplyCommand(services)],
  ]);
}

/** `/task <what> [when]`: a task from a line of text, with a reminder in this chat when it names a time. */
function taskCommand(services: NotesServices): NotesCommand {
  const { tasks } = services;
  return {
    description: 'add a task: /task pay rent every month on the 1st, /task call Bob tomorrow at 3pm',
    async run({ channel, chatId, userId, args, conversationId }) {
      if (args.trim() === '') return 'Usage: /task <what> [when], e.g. "/task call the dentist tomorrow at 10am", "/task pay rent every month on the 1st", "/task remind me to water the plants every Monday". A time, or "remind me", adds a reminder in this chat.';
      const parsed = parseTaskText(args, services.now(), currentZone(services.timeZone));
      if (parsed.description === '') return 'What is the task? Write it before or after the date.';
      const { remind: _remind, ...input } = parsed;
      const created = await tasks.create(input, { conversationId, chat: { channel, chatId, userId } });
      if (!created.success) return `Not added: ${created.error}`;
      const task = created.value;
      const reminder = task.reminder !== undefined ? (services.reminders ? ` I will remind you here at ${task.reminder}.` : ' (Reminders are off here: no scheduler.)') : '';
      return `Added to ${task.path}:\n${taskForChat(task)}${reminder}`;
    },
  };
}

/** `/tasks`: open tasks by due date; `/tasks all`, `/tasks LIST`, `/tasks done REF`. */
function tasksCommand(services: NotesServices): NotesCommand {
  const { tasks } = services;
  return {
    description: 'open tasks by due date (/tasks all, /tasks LIST, /tasks done REF)',
    async run({ channel, chatId, userId, args, conversationId }) {
      const [action = '', ...rest] = args.trim().split(/\s+/).filter(Boolean);
      if (action.toLowerCase() === 'done') {
        const reference = rest.join(' ');
        if (reference === '') return 'Usage: /tasks done <ref> (the ref is at the end of each line of /tasks).';
        const done = await tasks.complete(reference, { conversationId, chat: { channel, chatId, userId } });
        if (!done.success) return done.error;
        return `✅ ${done.value.description}${done.value.next ? `\nNext: ${taskForChat(done.value.next)}` : ''}`;
      }
      const all = action.toLowerCase() === 'all';
      const list = action !== '' && !all ? [action, ...rest].join(' ') : undefined;
      const open = tasks.search({ status: 'open', limit: all ? 500 : 100, ...(list !== undefined ? { list } : {}) });
      if (open.length === 0 && list !== undefined) return `No open tasks in the list "${list}".`;
      return tasksByDue(open, tasks.today());
    },
  };
}

/** `/save`: the last answer, a text or a web page as a note. */
function saveCommand(services: NotesServices, access: ConversationAccess): NotesCommand {
  return {
    description: 'save a note: /save (my last answer), /save <text>, /save <URL> (the page)',
    async run({ args, conversationId }) {
      const text = args.trim();
      if (URL_ONLY.test(text)) {
        const page = await services.scrape(text);
        if (!page.success) return `Not saved: ${page.error}`;
        const note = await savePage(services, page.value, { conversationId });
        return note.success ? `Saved "${note.value.title}" as ${note.value.path} (from ${page.value.url}).` : `Not saved: ${note.error}`;
      }
      let body = text;
      let from = 'your text';
      let sources: readonly string[] = [];
      if (body === '') {
        const last = access.lastAnswer?.(conversationId);
        body = last?.text ?? '';
        sources = last?.sources ?? [];
        from = 'my last answer';
        if (body === '') return 'There is no answer of mine in this conversation to save. Use /save <text> or /save <URL>.';
      }
      const firstLine = body.split(/\r?\n/).find((line) => line.trim() !== '')?.replace(/^#+\s*/, '').trim() ?? '';
      const title = firstLine.length > 0 && firstLine.length <= 80 ? firstLine : `Note ${localTimestamp(services.now(), services.timeZone).slice(0, 16).replace('T', ' ')}`;
      // An answer given while outside content was in play is saved labelled as such (kept out of the prompt).
      const note = await withCallScope({ taint: sources }, () => services.notes.create({ title, body, conversationId }));
      return note.success ? `Saved ${from} as ${note.value.path}${sources.length > 0 ? ` (it holds outside content from ${sources.join(', ')}; /trust ${note.value.path} once you have checked it)` : ''}.` : `Not saved: ${note.error}`;
    },
  };
}

/** `/scrape <URL>`: a page read into the conversation, as if the assistant had called web_scrape. */
function scrapeCommand(services: NotesServices, access: ConversationAccess): NotesCommand {
  return {
    description: 'read a web page into this conversation: /scrape <URL>',
    async run({ args, conversationId }) {
      const url = args.trim();
      if (!URL_ONLY.test(url)) return 'Usage: /scrape <URL> — I read the page (its article, without menus and ads) and keep it in this conversation for your questions. /save <URL> keeps it as a note.';
      const page = await services.scrape(url);
      if (!page.success) return page.error;
      const scraped = page.value;
      if (access.remember) {
        // As if the assistant had called web_scrape itself: the page is a tool result, outside content, in the history.
        const turnId = `scrape-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
        const callId = `call_${randomBytes(6).toString('hex')}`;
        const shown = pageForModel(scraped);
        access.remember(conversationId, turnId, [
          { role: 'user', content: `/scrape ${url}` },
          { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: 'web_scrape', arguments: JSON.stringify({ url }) } }] },
          { role: 'tool', tool_call_id: callId, content: shown.text },
          { role: 'assistant', content: `I read "${scraped.title}" (${scraped.url}); ask me about it.` },
        ], {
          sources: [undefined, [scraped.url], [scraped.url], [scraped.url]],
          // The page's links vouch as if web_scrape had read it (the person asked for it).
          vouched: [undefined, undefined, vouchedBy([shown.shown], { url }), undefined],
        });
      }
      const preview = scraped.markdown.length > SCRAPE_PREVIEW_CHARS ? `${scraped.markdown.slice(0, SCRAPE_PREVIEW_CHARS)}…` : scraped.markdown;
      const facts = [scraped.title, [scraped.byline, scraped.published].filter(Boolean).join(' · '), scraped.url].filter((line) => line !== '').join('\n');
      return `${facts}\n\n${preview}\n\n${access.remember ? '(The page is in our conversation now: ask me about it. /save ' + scraped.url + ' keeps it as a note.)' : ''}`.trim();
    },
  };
}

/** `/plan`: a planning session, one agent turn over the active goals and open tasks. */
function planCommand(services: NotesServices, access: ConversationAccess): NotesCommand {
  return {
    description: 'a planning session: /plan (this week), /plan today, /plan month',
    async run({ channel, chatId, userId, args, conversationId }) {
      if (!access.converse) return 'Planning needs the assistant, which is not available here.';
      const word = args.trim().toLowerCase();
      const period = /^(today|day)\b/.test(word) ? 'day' : /^month\b/.test(word) ? 'month' : 'week';
      const focus = args.trim().replace(/^(today|day|week|month)\b\s*/i, '');
      const review = planningReview(services, period);
      const text = [
        `Let's plan ${period === 'day' ? 'my day' : `my ${period}`}.${focus ? ` Focus: ${focus}.` : ''}`,
        'Here are my active goals and open tasks:',
        review,
        'Walk through them with me: what matters most for my goals, what is overdue, what to drop or move. Propose a concrete plan (what, when), then save it with plan_create (new tasks in it; link the goals), and tell me the plan.',
      ].join('\n\n');
      try {
        const result = await access.converse({ text, origin: { channel, chatId, userId }, conversationId });
        return result.text;
      } catch (error) {
        return `The planning session failed: ${errorMessage(error)}`;
      }
    },
  };
}

/** `/email`: tasks proposed from recent mail; `/email add 1 3` (or all) writes the chosen ones. */
function emailCommand(services: NotesServices): NotesCommand {
  const { tasks } = services;
  return {
    description: 'find tasks in recent mail; /email add 1 3 (or all) writes the ones you choose',
    async run({ channel, chatId, userId, args, conversationId }) {
      const scanner = services.scanner;
      if (!scanner) return 'E-mail is not set up (tools.email in config.yaml), so I cannot look for tasks in your mail.';
      const origin: ChatOrigin = { channel, chatId, userId };
      const [action = '', ...rest] = args.trim().split(/[\s,]+/).filter(Boolean);
      if (action.toLowerCase() === 'add') {
        if (rest.length === 1 && rest[0]?.toLowerCase() === 'all') return addProposals(services, scanner, origin, 'all', conversationId);
        const numbers = rest.map(Number);
        if (numbers.length === 0 || numbers.some((number) => !Number.isInteger(number) || number < 1)) return 'Usage: /email add 1 3 (the numbers of the proposals), or /email add all.';
        return addProposals(services, scanner, origin, numbers, conversationId);
      }
      const days = /^\d+$/.test(action) ? Math.min(Number(action), 60) : 7;
      const existing = new Set(tasks.search({ status: 'all', limit: 10_000 }).map((task) => task.description.toLowerCase()));
      const scanned = await scanner.scan(chatKey(origin), { days, limit: 20 }, existing);
      if (!scanned.success) return scanned.error;
      return formatProposals(scanned.value.proposals, scanned.value.scanned, scanner.account, services.timeZone);
    },
  };
}
