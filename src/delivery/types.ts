/**
 * The one way anything speaks to a chat later — a job's or skill's result, a reminder, a notice — as the parts that
 * do it see it: a `Delivery`, made by the root over the running channels and handed to them.
 */
import type { Artifact, CallOrigin } from '../tools/types.js';

/** What goes to a chat: text, files, and buttons under the text (a reminder's Snooze and Done). */
export interface Reply {
  text: string;
  artifacts?: Artifact[];
  buttons?: readonly ReplyButton[];
}

/**
 * A button under a delivered text. `data` comes back in a `ButtonPress` (at most 64 bytes: Telegram's limit for
 * callback data); the part that made it answers the press (the channels only carry it).
 */
export interface ReplyButton {
  label: string;
  data: string;
}

/** A press of a `ReplyButton`, as a channel saw it: who pressed, in which chat. */
export interface ButtonPress {
  channel: string;
  chatId: string;
  userId: string;
  data: string;
  /** The presser passes the channel's access check (allowlist or pairing), as a message from them would. */
  allowed: boolean;
}

/** What the presser is told (`notice`, shown briefly), and when the press counted, the line the message ends with (its buttons then go). */
export interface ButtonAnswer {
  notice: string;
  outcome?: string;
}

/** Answers presses of the buttons it made; undefined for data it does not know (another part's). Contract: never throws. */
export type ButtonHandler = (press: ButtonPress) => Promise<ButtonAnswer | undefined>;

/** Where a result went, or why it did not. */
export type Delivered = { deliveredTo: string; error?: undefined } | { deliveredTo?: undefined; error: string };

/** What is being delivered, for the log, and where its words came from. */
export interface DeliveryContext {
  kind: 'job' | 'skill' | 'reminder' | 'heartbeat' | 'memory';
  id: string;
  /**
   * The outside sources the text was made from (a reminder written while reading a page, a run that read mail): the
   * delivery then says so and shows every link the person did not write as inert text (outside.ts).
   */
  outside?: readonly string[];
  /** Text the person wrote for this (a job's prompt): its addresses stay live links. */
  personText?: string;
}

export interface Delivery {
  /** The chat an origin stands for (`telegram:123`), or undefined for the terminal and the scheduler itself. */
  chatOf(origin: CallOrigin): string | undefined;
  /**
   * Where results of something made from `origin` go: the explicit target, else the chat that made it, else
   * `scheduler.default_chat`. Never another chat. Undefined when there is nowhere to send them.
   */
  targetFor(origin: CallOrigin | undefined, explicit?: string): string | undefined;
  /** Sends to a chat (waiting a little for a channel that is still starting). Contract: never throws. */
  deliver(target: string | undefined, reply: Reply, context: DeliveryContext): Promise<Delivered>;
  /** The text as it would be delivered (the terminal shows a run's result the same way). */
  render(text: string, context: DeliveryContext): string;
}
