import webpush, { WebPushError } from 'web-push';
import { errorMessage } from '../../errors.js';
import { redactorFor } from '../../lib/redaction.js';
import type { Logger } from '../../log.js';
import type { Reply } from '../../delivery/types.js';
import type { PushStore } from './push-store.js';

/** The channel's name on the hub: `push:owner` is a delivery target like `console:owner`. */
export const PUSH_CHANNEL = 'push';
/** A notification shows a title and the start of the text; the rest is in the console. */
export const PUSH_BODY_CHARS = 200;
/** How long a push service keeps a message for a phone that is off (RFC 8030 TTL). */
const TTL_S = 24 * 3600;

/** What a notification says; `approval` makes it answerable (Approve / Deny) with a one-time token. */
export interface PushMessage {
  title: string;
  text: string;
  /** The console page a tap opens. */
  url?: string;
  /** Notifications with one tag replace each other (one per approval question). */
  tag?: string;
  approval?: { id: string; token: string };
  urgency?: 'normal' | 'high';
}

export interface PushChannelDeps {
  store: PushStore;
  secrets: readonly string[];
  log: Logger;
  /** The VAPID subject (RFC 8292): the console's https address, or a mailto: the push service can write to. */
  subject: string;
  now?: () => number;
}

/**
 * Web Push as a chat channel on the hub: what is delivered to `push:PERSON` goes to every device that person
 * subscribed, as a short notification (the title and the first 200 characters of the redacted text; the text
 * arrives already rendered by the delivery path, so outside content is marked as on every channel). The payload is
 * encrypted to each device (RFC 8291) and signed for with the VAPID key (RFC 8292) by `web-push`. A device whose
 * push service answers 404 or 410 has gone, and its subscription is deleted.
 */
export class PushChannel {
  readonly name = PUSH_CHANNEL;
  private readonly deps: PushChannelDeps;

  constructor(deps: PushChannelDeps) {
    this.deps = deps;
  }

  /** What the hub calls. Throws when the person has no subscribed device or none took the message. */
  async send(chatId: string, reply: Reply): Promise<void> {
    const sent = await this.notify(chatId, { title: 'Familiar', text: reply.text });
    if (sent.devices === 0) throw new Error(`no device of ${chatId} has notifications on (the console's Health page has the switch)`);
    if (sent.delivered === 0) throw new Error(`no push service took the notification (${sent.devices} device(s); see the log)`);
  }

  /** Sends to each of the person's devices. Contract: never throws; says how many devices there were and took it. */
  async notify(person: string, message: PushMessage): Promise<{ devices: number; delivered: number }> {
    const devices = this.deps.store.list(person);
    if (devices.length === 0) return { devices: 0, delivered: 0 };
    const redact = redactorFor(this.deps.secrets);
    const text = redact.text(message.text).trim();
    const payload = JSON.stringify({
      title: redact.text(message.title).slice(0, 80),
      body: text.length > PUSH_BODY_CHARS ? `${text.slice(0, PUSH_BODY_CHARS - 1)}…` : text,
      url: message.url ?? '/console/chat',
      ...(message.tag ? { tag: message.tag } : {}),
      ...(message.approval ? { approval: message.approval } : {}),
    });
    const keys = this.deps.store.keys();
    let delivered = 0;
    for (const device of devices) {
      const log = this.deps.log.child({ push: new URL(device.endpoint).host });
      try {
        await webpush.sendNotification({ endpoint: device.endpoint, keys: device.keys }, payload, {
          vapidDetails: { subject: this.deps.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: TTL_S, urgency: message.urgency ?? 'normal', contentEncoding: 'aes128gcm', timeout: 10_000,
        });
        this.deps.store.succeeded(device.endpoint, this.deps.now?.() ?? Date.now());
        delivered += 1;
      } catch (error) {
        if (error instanceof WebPushError && (error.statusCode === 404 || error.statusCode === 410)) {
          this.deps.store.remove(device.endpoint);
          log.info({ status: error.statusCode }, 'push: the device unsubscribed (its push service said it is gone); subscription deleted');
          continue;
        }
        log.warn({ err: redact.text(errorMessage(error)) }, 'push: the push service refused the notification');
      }
    }
    return { devices: devices.length, delivered };
  }
}
