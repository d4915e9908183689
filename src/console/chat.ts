import { randomBytes } from 'node:crypto';
import { errorMessage } from '../errors.js';
import { maskJsonText } from '../lib/mask.js';
import { redactorFor } from '../lib/redaction.js';
import type { Result } from '../lib/result.js';
import { StreamRedactor } from '../lib/stream-redaction.js';
import type { Logger } from '../log.js';
import type { Artifact } from '../tools/types.js';
import type { Reply } from '../delivery/types.js';
import type { TurnEvent } from '../turns/types.js';
import type { EventHub } from './events.js';
import { MAX_ARTIFACT_BYTES, type ConsoleItems } from './items.js';
import { renderMarkdown } from './markdown.js';
import { CONSOLE_CHANNEL, CONSOLE_CHAT, type ConsoleAttachment, type ConsoleConversations, type ConsoleIo, type ConsoleUpdate, type Transcriber } from './types.js';

/** A file the person uploaded with a message. */
export interface Upload {
  name: string;
  mimeType: string;
  data: Buffer;
}

/** A tool call as the chat shows it while it runs: arguments masked and shortened, outcome and duration once done. */
export interface LiveTool {
  callId: string;
  tool: string;
  arguments: string;
  state: 'running' | 'ok' | 'failed' | 'denied';
  durationMs?: number;
  output?: string;
}

/** The turn running now, so a page opened (or reloaded) in the middle shows it. */
export interface LiveTurn {
  conversationId: string;
  messageId: string;
  question: string;
  text: string;
  tools: LiveTool[];
}

export const MAX_MESSAGE_CHARS = 20_000;
export const MAX_FILES = 10;
const SHORT_ARGUMENTS = 300;
const SHORT_OUTPUT = 400;

export interface ConsoleChatDeps {
  inbound(update: ConsoleUpdate, io: ConsoleIo): Promise<void>;
  conversations: ConsoleConversations;
  items: ConsoleItems;
  events: EventHub;
  secrets: readonly string[];
  log: Logger;
  transcribe?: Transcriber | undefined;
  /** Whether delivered buttons can be pressed here (the daemon gave the console a ButtonHandler). */
  buttons?: boolean;
  /** A reply or a delivery that no open page showed (the person's phone gets it as a notification). */
  unwatched?: (reply: Reply) => void;
}

/**
 * The console as a chat channel: its messages go through the chat router like a Telegram message (access,
 * dedupe, chat commands, the chat's queue, `/stop`), with the turn's progress streamed to the open pages — the
 * answer's text as it is generated, each tool call as it starts and ends (arguments masked). Files go in with
 * the message: the router stores them in the conversation's workspace (pinned, size-limited). As an adapter in
 * the hub it also receives what jobs and skills deliver to `console:owner`.
 */
export class ConsoleChat {
  readonly name = CONSOLE_CHANNEL;
  private readonly deps: ConsoleChatDeps;
  /** Turns accepted and not answered, in order: the chat's queue runs the first one. */
  private readonly live = new Map<string, LiveTurn>();
  /** Per conversation: the streamed text's redaction, which holds back what could be the start of a secret. */
  private readonly streams = new Map<string, StreamRedactor>();

  constructor(deps: ConsoleChatDeps) {
    this.deps = deps;
  }

  /** The turns accepted and not answered yet, the running one first. */
  current(): LiveTurn[] {
    return [...this.live.values()];
  }

  activeConversation(): string {
    return this.deps.conversations.resolve(CONSOLE_CHANNEL, CONSOLE_CHAT);
  }

  /**
   * Takes a message from the page and hands it to the router; the answer arrives as events. `messageId` comes
   * from the page, so a form sent twice (a retry, a double click) is answered once.
   */
  async submit(input: { text: string; uploads: Upload[]; messageId: string }): Promise<Result> {
    let text = input.text.trim();
    if (text.length > MAX_MESSAGE_CHARS) return { success: false, error: `The message is ${text.length} characters; the limit is ${MAX_MESSAGE_CHARS}. Send it as a file instead.` };
    if (input.uploads.length > MAX_FILES) return { success: false, error: `At most ${MAX_FILES} files per message.` };
    if (text === '' && input.uploads.length === 0) return { success: false, error: 'Write something or attach a file.' };
    const transcripts = await this.transcribe(input.uploads);
    if (transcripts.length > 0) text = [text, ...transcripts].filter((part) => part !== '').join('\n\n');
    const attachments: ConsoleAttachment[] = input.uploads.map((upload) => ({
      kind: upload.mimeType.startsWith('image/') ? 'image' : 'file', name: upload.name, mimeType: upload.mimeType || 'application/octet-stream',
      size: upload.data.length, fetch: async () => upload.data,
    }));
    const conversationId = this.activeConversation();
    const shown = this.redact(input.text.trim());
    this.deps.events.publish('chat', { kind: 'accepted', conversationId, messageId: input.messageId, text: shown, files: input.uploads.map((upload) => upload.name) });
    const update: ConsoleUpdate = {
      channel: CONSOLE_CHANNEL, chatId: CONSOLE_CHAT, userId: CONSOLE_CHAT, userName: 'owner', text, attachments,
      platformMessageId: input.messageId, isDirect: true,
    };
    // The router never throws; the answer (or a command's reply) comes back through the io.
    void this.deps.inbound(update, this.io(conversationId, input.messageId, shown));
    return { success: true, value: undefined };
  }

  /** What the hub calls for results delivered to `console:owner` (jobs, skills). */
  async send(chatId: string, reply: Reply): Promise<void> {
    if (chatId !== CONSOLE_CHAT) throw new Error(`the console has one chat ("${CONSOLE_CHAT}"), not "${chatId}"`);
    const conversationId = this.activeConversation();
    const item = this.deps.items.add({ conversationId, kind: 'delivery', text: reply.text });
    const files = this.keep(conversationId, reply.artifacts ?? []);
    // Buttons (a reminder's Snooze and Done) are live on the open pages; afterwards /snooze and /done do the same.
    const buttons = this.deps.buttons ? (reply.buttons ?? []).map((button) => ({ label: button.label, data: button.data })) : [];
    this.deps.events.publish('chat', { kind: 'delivery', conversationId, id: item.id, html: renderMarkdown(this.redact(reply.text)).value, artifacts: files, buttons });
    this.tellIfUnwatched(reply);
  }

  private tellIfUnwatched(reply: Reply): void {
    if (this.deps.events.listeners('chat') === 0) this.deps.unwatched?.(reply);
  }

  private io(conversationId: string, messageId: string, question: string): ConsoleIo {
    let turn = false;
    return {
      stream: true,
      turnStarted: () => {
        turn = true;
        this.live.set(messageId, { conversationId, messageId, question, text: '', tools: [] });
        // A turn starts its text afresh (a turn that failed before its reply may have left some held back).
        this.streams.delete(conversationId);
        this.deps.events.publish('chat', { kind: 'working', conversationId, messageId });
      },
      // The page shows its own "working" state from the events above.
      typing: async () => undefined,
      onEvent: (event) => this.progress(conversationId, event),
      send: async (reply) => {
        if (!turn) {
          // No turn ran: a chat command's answer (/help, /reset …), which no conversation records.
          const item = this.deps.items.add({ conversationId, kind: 'command', name: question, text: reply.text });
          this.deps.events.publish('chat', { kind: 'command', conversationId, messageId, id: item.id, command: question, html: renderMarkdown(this.redact(reply.text)).value });
          return;
        }
        this.live.delete(messageId);
        const files = this.keep(conversationId, reply.artifacts ?? []);
        // The reply replaces the streamed text whole (redacted whole): what was held back is not needed.
        this.streams.delete(conversationId);
        this.deps.events.publish('chat', { kind: 'reply', conversationId, messageId, html: renderMarkdown(this.redact(reply.text)).value, artifacts: files });
        this.tellIfUnwatched(reply);
      },
    };
  }

  private progress(conversationId: string, event: TurnEvent): void {
    const live = this.live.values().next().value;
    switch (event.type) {
      case 'text_delta': {
        let stream = this.streams.get(conversationId);
        if (!stream) {
          stream = new StreamRedactor(this.deps.secrets, (text) => this.redact(text));
          this.streams.set(conversationId, stream);
        }
        const shown = stream.push(event.text);
        if (live) live.text += shown;
        if (shown) this.deps.events.publish('chat', { kind: 'delta', conversationId, text: shown });
        return;
      }
      case 'text_reset':
        this.streams.get(conversationId)?.reset();
        if (live) live.text = '';
        this.deps.events.publish('chat', { kind: 'reset', conversationId });
        return;
      case 'tool_start': {
        // The text before the call is complete: what was held back goes out before the call's card.
        const rest = this.streams.get(conversationId)?.flush() ?? '';
        this.streams.delete(conversationId);
        if (rest) this.deps.events.publish('chat', { kind: 'delta', conversationId, text: rest });
        const tool: LiveTool = { callId: event.callId, tool: event.tool, arguments: this.shortArguments(event.arguments), state: 'running' };
        if (live) {
          // The text before a tool call is stored with the call: the page shows it from the history from now on.
          live.text = '';
          live.tools.push(tool);
        }
        this.deps.events.publish('chat', { kind: 'tool_start', conversationId, ...tool });
        return;
      }
      case 'tool_end': {
        const state = event.decision?.startsWith('denied') ? 'denied' : event.success ? 'ok' : 'failed';
        const output = this.short(this.redact(event.output), SHORT_OUTPUT);
        const tool = live?.tools.find((entry) => entry.callId === event.callId);
        if (tool) Object.assign(tool, { state, durationMs: Math.round(event.durationMs), output });
        this.deps.events.publish('chat', { kind: 'tool_end', conversationId, callId: event.callId, tool: event.tool, state, durationMs: Math.round(event.durationMs), output });
        return;
      }
    }
  }

  /** Files of a reply, kept for download (the content stays in the database, not in the page). */
  private keep(conversationId: string, artifacts: readonly Artifact[]): Array<{ id: number; name: string; size: number; mimeType: string | undefined }> {
    const kept: Array<{ id: number; name: string; size: number; mimeType: string | undefined }> = [];
    for (const artifact of artifacts) {
      const content = typeof artifact.content === 'string' ? Buffer.from(artifact.content, 'utf8') : artifact.content;
      if (content.length > MAX_ARTIFACT_BYTES) {
        this.deps.items.add({ conversationId, kind: 'delivery', text: `(The file ${artifact.name} was ${Math.round(content.length / 1048576)} MB, too large to keep in the console.)` });
        continue;
      }
      const mimeType = artifact.mimeType ?? (artifact.type === 'json' ? 'application/json' : undefined);
      const item = this.deps.items.add({ conversationId, kind: 'artifact', name: artifact.name, content, ...(mimeType ? { mimeType } : {}) });
      kept.push({ id: item.id, name: artifact.name, size: content.length, mimeType });
    }
    return kept;
  }

  private async transcribe(uploads: readonly Upload[]): Promise<string[]> {
    const transcribe = this.deps.transcribe;
    if (!transcribe) return [];
    const lines: string[] = [];
    for (const upload of uploads.filter((entry) => entry.mimeType.startsWith('audio/'))) {
      try {
        const transcript = await transcribe({ name: upload.name, mimeType: upload.mimeType, data: upload.data });
        if (transcript) lines.push(`[Transcript of ${upload.name}:]\n${transcript}`);
      } catch (error) {
        this.deps.log.warn({ err: error, file: upload.name }, 'console: the audio file could not be transcribed; it is sent as a file');
        // Said in the turn, so the answer tells the person; the file itself is kept in the workspace as usual.
        lines.push(`[${upload.name} could not be transcribed: ${this.redact(errorMessage(error)).slice(0, 300)}. The file is kept.]`);
      }
    }
    return lines;
  }

  shortArguments(text: string): string {
    return this.short(maskJsonText(text, this.deps.secrets), SHORT_ARGUMENTS);
  }

  private redact(text: string): string {
    return redactorFor(this.deps.secrets).text(text);
  }

  private short(text: string, max: number): string {
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  }
}

/** A message id for a form sent without the page's script (it makes its own). */
export function newMessageId(): string {
  return randomBytes(12).toString('base64url');
}
