import type { OpenQuestion, QuestionEvent } from '../../approval/open-questions.js';
import type { Reply } from '../../delivery/types.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../log.js';
import type { DoctorLine } from '../../part.js';
import { ApprovalTokens } from './approval-tokens.js';
import { PushChannel } from './push-channel.js';
import { PushStore } from './push-store.js';

export interface ConsolePushDeps {
  db: Database;
  secrets: readonly string[];
  log: Logger;
  /** `http.public_url`: its https address is the VAPID subject. */
  publicUrl: string | undefined;
  /** The person behind the console's login (its one chat). */
  person: string;
  /** Whether a console page is open on a topic now (then nothing is pushed: the page shows it). */
  watching(topic: 'chat' | 'approvals'): boolean;
  now?: () => number;
}

/**
 * The console's notifications: the push channel (registered on the hub by the console), the subscriptions, and the
 * approval questions sent as answerable notifications. What is pushed: a reply or a delivery (a job's result, a
 * reminder) to the console's chat while no console page is open, and a question the console's chat asks while no
 * console page is open (other chats' questions have their own buttons there).
 */
export class ConsolePush {
  readonly store: PushStore;
  readonly channel: PushChannel;
  readonly tokens = new ApprovalTokens();
  private readonly deps: ConsolePushDeps;

  constructor(deps: ConsolePushDeps) {
    this.deps = deps;
    this.store = new PushStore(deps.db);
    const subject = deps.publicUrl?.startsWith('https:') ? new URL(deps.publicUrl).origin : 'mailto:familiar@localhost.invalid';
    this.channel = new PushChannel({ store: this.store, secrets: deps.secrets, log: deps.log.child({ component: 'push' }), subject, ...(deps.now ? { now: deps.now } : {}) });
  }

  /** A reply no page showed: through the channel, like any delivery to `push:PERSON`. */
  unwatched(reply: Reply): void {
    if (this.store.count() === 0) return;
    this.channel.send(this.deps.person, reply).catch((error: unknown) => this.deps.log.warn({ err: error }, 'push: the reply could not be pushed'));
  }

  /** Follows the open questions: each console question nobody is watching goes out with Approve and Deny. */
  onQuestion(event: QuestionEvent): void {
    if (event.type === 'closed') {
      this.tokens.forget(event.question.id);
      return;
    }
    const question = event.question;
    if (question.channel !== 'console' || this.deps.watching('approvals') || this.store.count() === 0) return;
    void this.channel.notify(this.deps.person, this.approvalMessage(question));
  }

  private approvalMessage(question: OpenQuestion) {
    return {
      title: `Approve ${question.tool}?`, text: question.text, url: '/console/approvals', tag: question.id, urgency: 'high' as const,
      approval: { id: question.id, token: this.tokens.issue(question.id) },
    };
  }

  doctor(): DoctorLine[] {
    const devices = this.store.count();
    const https = this.deps.publicUrl?.startsWith('https:') === true;
    return [{
      status: 'ok',
      label: `push: ${this.store.hasKeys() ? 'VAPID keys present' : 'no VAPID keys yet (made when a device first turns notifications on)'}, ${devices} device(s) subscribed`,
      detail: https ? `subject ${new URL(this.deps.publicUrl ?? '').origin}` : 'phones need the console over https (http.public_url) to subscribe; this machine\'s browser can on http://127.0.0.1',
    }];
  }
}
