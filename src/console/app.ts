import type { IncomingMessage, ServerResponse } from 'node:http';
import { maskJsonText } from '../lib/mask.js';
import { redactorFor } from '../lib/redaction.js';
import type { Assets } from './assets.js';
import type { Session } from './auth.js';
import type { ConsoleAuth } from './auth.js';
import type { ConsoleChat } from './chat.js';
import type { EventHub } from './events.js';
import type { Html } from './html.js';
import type { ConsoleItems } from './items.js';
import { page, type SectionId } from './layout.js';
import type { ConsoleDeps } from './types.js';

/** One request as the routes see it. `session` is set on every route but the public ones (login, assets). */
export interface RequestContext {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** The route pattern's groups. */
  params: string[];
  session: Session | undefined;
  /** The form fields of a POST (urlencoded or multipart), the CSRF token already checked. */
  form: FormData | undefined;
}

/** What a route answers; the server writes it (with the security headers, compressed when it helps). */
export type Answer =
  | { type: 'html'; status?: number; body: Html }
  | { type: 'json'; status?: number; body: unknown }
  | { type: 'redirect'; location: string; flash?: { kind: 'ok' | 'error'; text: string } }
  | { type: 'file'; contentType: string; body: Buffer; disposition?: string; cache?: string }
  /** The route wrote the response itself (an event stream). */
  | { type: 'done' };

export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  /** No session needed (the login page, the assets). */
  public?: boolean;
  /** Largest body accepted, in bytes (POST); default 64 KB. */
  maxBody?: number;
  handle(context: RequestContext): Promise<Answer>;
}

/** The console's services, shared by its routes. */
export class ConsoleApp {
  readonly deps: ConsoleDeps;
  readonly auth: ConsoleAuth;
  readonly events: EventHub;
  readonly chat: ConsoleChat;
  readonly items: ConsoleItems;
  readonly assets: Assets;
  private readonly flashes = new Map<string, { kind: 'ok' | 'error'; text: string }>();

  constructor(deps: ConsoleDeps, services: { auth: ConsoleAuth; events: EventHub; chat: ConsoleChat; items: ConsoleItems; assets: Assets }) {
    this.deps = deps;
    this.auth = services.auth;
    this.events = services.events;
    this.chat = services.chat;
    this.items = services.items;
    this.assets = services.assets;
  }

  now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Configured secrets out of any text shown on a page. */
  redact(text: string): string {
    return redactorFor(this.deps.secrets).text(text);
  }

  /** Tool arguments as shown: secret values redacted and secret-looking keys masked. */
  mask(json: string): string {
    return maskJsonText(json, this.deps.secrets);
  }

  /** True when `text` holds a configured secret (a memory file a person pasted a key into). */
  holdsSecret(text: string): boolean {
    return this.redact(text) !== text;
  }

  formatTime(ms: number): string {
    return this.deps.clock.format(new Date(ms));
  }

  /** A message for the next page this session loads (after a redirect). */
  setFlash(session: Session | undefined, flash: { kind: 'ok' | 'error'; text: string }): void {
    if (!session) return;
    this.flashes.set(session.id, flash);
    if (this.flashes.size > 100) this.flashes.delete(this.flashes.keys().next().value ?? '');
  }

  render(context: RequestContext, view: { title: string; section: SectionId; body: Html; status?: number; flash?: { kind: 'ok' | 'error'; text: string } }): Answer {
    const session = context.session;
    // A page's own script re-reading it (a live refresh) neither shows nor takes the message meant for the page
    // the browser goes to next: the refresh of the page a form was sent from can land before that page's load.
    const scripted = context.request.headers['x-requested-with'] !== undefined;
    const flash = view.flash ?? (session && !scripted ? this.flashes.get(session.id) : undefined);
    if (session && !scripted) this.flashes.delete(session.id);
    return {
      type: 'html',
      ...(view.status !== undefined ? { status: view.status } : {}),
      body: page({
        title: view.title, section: view.section, assets: this.assets.urls, body: view.body, flash,
        ...(session ? { csrf: session.csrf } : {}),
        waiting: this.deps.approvals.questions.list().length,
      }),
    };
  }
}

/** The value of a form field, trimmed; '' when absent or a file. */
export function field(form: FormData | undefined, name: string): string {
  const value = form?.get(name);
  return typeof value === 'string' ? value.trim() : '';
}

/** Where to go after a form: its `back` field when that is a console page, else `fallback` (no Referer is sent). */
export function backTo(form: FormData | undefined, fallback: string): string {
  const back = field(form, 'back');
  return /^\/console\/[A-Za-z0-9/_.?=&%-]*$/.test(back) && !back.startsWith('//') ? back : fallback;
}
