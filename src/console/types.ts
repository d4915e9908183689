/**
 * What the console takes from the rest of the daemon, as narrow interfaces: the root hands it the router's
 * `handle`, the hub, the stores and the services; the console imports none of their modules' internals.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalPrompter } from '../approval/prompter.js';
import type { AuditEntry, AuditFilter } from '../audit/query.js';
import type { OpenQuestions } from '../approval/open-questions.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { ZonedClock } from '../lib/clock.js';
import type { LogRing } from '../lib/log-ring.js';
import type { ChatMessage } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { MemoryHistory } from '../memory/history.js';
import type { MemoryStore } from '../memory/store.js';
import type { ChatCommands, DoctorLine } from '../part.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { SkillService } from '../skills/service.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ButtonHandler, Reply } from '../delivery/types.js';
import type { TurnEvent } from '../turns/types.js';
import type { TurnFilter, TurnRow } from '../usage/turns.js';
import type { ModelDay, UsageToday } from '../usage/usage.js';

/** The console's chat: channel `console`, one chat, one person — the owner behind the login. */
export const CONSOLE_CHANNEL = 'console';
export const CONSOLE_CHAT = 'owner';

/** A file sent with a console message, held in memory until the router stores it in the workspace. */
export interface ConsoleAttachment {
  kind: 'image' | 'file';
  name: string;
  mimeType: string;
  size: number;
  fetch(): Promise<Buffer>;
}

/** A console message as the chat router takes it (the same shape as a Telegram or Discord update). */
export interface ConsoleUpdate {
  channel: string;
  chatId: string;
  userId: string;
  userName: string;
  text: string;
  attachments: ConsoleAttachment[];
  platformMessageId: string;
  isDirect: boolean;
}

/** How the router answers the console: the reply, the typing signal, and the turn's progress as it runs. */
export interface ConsoleIo {
  send(reply: Reply): Promise<void>;
  typing(): Promise<void>;
  onEvent?: (event: TurnEvent) => void;
  stream?: boolean;
  turnStarted?(): void;
}

export interface StoredMessage {
  id: number;
  turnId: string | null;
  message: ChatMessage;
  createdAt: number;
}

export interface ConversationSummary {
  id: string;
  createdAt: number;
  archivedAt: number | undefined;
  messages: number;
  /** The first thing the person wrote, for the list. */
  preview: string | undefined;
}

/** The conversation store, as far as the console reads it. */
export interface ConsoleConversations {
  resolve(channel: string, chatId: string): string;
  listOf(channel: string, chatId: string, limit?: number): ConversationSummary[];
  transcript(conversationId: string, limit?: number): StoredMessage[];
}

export interface PairingRequestView {
  code: string;
  channel: string;
  userId: string;
  userName: string;
  chatId: string;
  createdAt: number;
  expiresAt: number;
}

/** The pairing store, as far as the console uses it (approve or deny a waiting person). */
export interface ConsolePairing {
  pending(): PairingRequestView[];
  paired(): Array<{ channel: string; userId: string; userName: string; addedAt: number }>;
  approve(code: string): unknown;
  deny(code: string): unknown;
}

/** The hook for audio uploaded in the console (speech to text): its transcript goes to the model with the file. */
export type Transcriber = (audio: { name: string; mimeType: string; data: Buffer }) => Promise<string | undefined>;

/** The provenance labels of memory files, as the console shows and clears them (src/gate/labels.ts). */
export interface MemoryLabels {
  get(kind: 'memory', path: string): readonly string[] | undefined;
  clear(kind: 'memory', path: string): boolean;
}

/**
 * What the console reads of the audit and of the turns, with the readers `familiar audit` and `familiar usage` use
 * (the root hands them over; the tables' SQL stays with their parts).
 */
export interface ConsoleRecords {
  audit(filter: AuditFilter): AuditEntry[];
  /** The tools that have audit rows (a filter's choices). */
  auditedTools(): string[];
  /** A call's outcome as the audit filter counts it: a refused approval is `denied`. */
  auditOutcome(entry: Pick<AuditEntry, 'success' | 'decision'>): 'ok' | 'failed' | 'denied';
  turns(filter: TurnFilter): TurnRow[];
  usageToday(at: Date): UsageToday;
  usageByDayAndModel(days: number, at: Date): Array<{ day: string; models: ModelDay[] }>;
  /** A household's person's tokens today (their budget's measure). */
  personTokensToday?(person: string, at: Date): number;
}

/** A week of the person's calendars as the console shows it (made by the calendar part, expanded on the client). */
export interface ConsoleWeek {
  /** The first day, `YYYY-MM-DD`. */
  first: string;
  days: Array<{ day: string; label: string; events: Array<{ time: string; summary: string; location?: string; from?: string }> }>;
  /** Calendars that could not be read. */
  problems: string[];
}

export interface ConsoleCalendar {
  /** Seven days from `first` (default: this week's Monday). Throws for a day it cannot read. */
  week(first: string | undefined): Promise<ConsoleWeek>;
}

export interface ConsoleDeps {
  config: Config;
  db: Database;
  log: Logger;
  secrets: readonly string[];
  clock: ZonedClock;
  /** Serves the console's pages on the HTTP endpoint (`http.listen`). */
  mount(mount: { prefix: string; home?: boolean; handle(request: IncomingMessage, response: ServerResponse): Promise<void> }): void;
  /** Where the HTTP endpoint listens once started (for the log line). */
  address(): { host: string; port: number } | undefined;
  /** The running channels: the console registers its adapter, so jobs and skills can deliver to `console:owner`. */
  hub: { register(adapter: { readonly name: string; send(chatId: string, reply: Reply): Promise<void> }): void; unregister(name: string): void };
  /** The chat router (access, dedupe, chat commands, the turn queue): a console message takes a chat's path. */
  inbound(update: ConsoleUpdate, io: ConsoleIo): Promise<void>;
  conversations: ConsoleConversations;
  /** Every chat command (shown as the chat's help). */
  commands: ChatCommands;
  approvals: { questions: OpenQuestions; registerPrompter(channel: string, prompter: ApprovalPrompter): void; unregisterPrompter(channel: string, prompter?: ApprovalPrompter): void };
  scheduler: Scheduler;
  skills: SkillService;
  tools: Pick<ToolRegistry, 'execute' | 'get'>;
  pairing: ConsolePairing | undefined;
  /** The calendar's week view; absent without tools.calendar. */
  calendar?: ConsoleCalendar | undefined;
  memory: MemoryStore;
  history: MemoryHistory;
  records: ConsoleRecords;
  /** Which memory files hold outside content (kept out of the prompt until the person vouches for one). */
  labels?: MemoryLabels;
  health: {
    /** What `/status` answers. */
    status(): unknown;
    /** What `familiar doctor` says about the running daemon's parts. */
    doctor(): Promise<DoctorLine[]>;
  };
  /** The daemon's last log lines (absent when the daemon was made without one, e.g. in tests). */
  logs: LogRing | undefined;
  /** Speech to text for uploaded audio; absent: audio files are stored like any other file. */
  transcribe?: Transcriber;
  /** Answers presses of the buttons a delivered reply carries (a reminder's Snooze and Done); absent: none are shown. */
  pressButton?: ButtonHandler;
  now?: () => number;
}
