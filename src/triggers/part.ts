import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import type { DoctorLine, Part } from '../part.js';
import { TriggerInbox } from './inbox.js';
import { createWebhookHandler } from './webhooks.js';

export interface TriggersPart {
  inbox: TriggerInbox;
  /** `POST /hooks/<name>/<token>`, mounted on http.listen by the root (when there is an endpoint). */
  webhooks: ReturnType<typeof createWebhookHandler>;
  part: Part;
}

/**
 * Inbound triggers: the durable inbox every trigger is written to before it is acknowledged, the signed webhook
 * routes (`triggers.webhooks`) and doctor lines. The mail watcher is the email part's (it owns the IMAP client) and
 * writes here; the scheduler hands what arrives to `trigger:` jobs. Making it has no side effects.
 */
export function createTriggersPart(deps: { config: Config; db: Database; log: Logger; now?: () => number }): TriggersPart {
  const { config } = deps;
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ component: 'triggers' });
  const inbox = new TriggerInbox(deps.db, now);
  const webhooks = createWebhookHandler({ routes: () => config.triggers.webhooks, inbox, log, now });
  const part: Part = {
    name: 'triggers',
    async start() {
      const routes = Object.keys(config.triggers.webhooks);
      if (routes.length > 0 && !config.http.listen) log.warn(`triggers: webhook routes (${routes.join(', ')}) are configured but http.listen is not set; nothing receives them`);
      else if (routes.length > 0) log.info({ routes }, `triggers: webhooks on ${config.http.listen}/hooks/<name>/<token>`);
    },
    async doctor() {
      return triggersDoctor(config, inbox);
    },
  };
  return { inbox, webhooks, part };
}

/** Each webhook route's secret, token and scheme, and where the inbox stands. */
function triggersDoctor(config: Config, inbox: TriggerInbox): DoctorLine[] {
  const lines: DoctorLine[] = [];
  for (const [name, route] of Object.entries(config.triggers.webhooks)) {
    const label = `webhook ${name} (${route.scheme})`;
    if (!route.secret) lines.push({ status: 'fail', label, detail: 'no secret: every request is refused', fix: `set triggers.webhooks.${name}.secret (e.g. \${${name.toUpperCase().replace(/-/g, '_')}_WEBHOOK_SECRET} in .env)` });
    else if (!route.token || route.token.length < 16) lines.push({ status: 'fail', label, detail: 'the path token is missing or shorter than 16 characters', fix: `set triggers.webhooks.${name}.token to a long random value (openssl rand -hex 24)` });
    else if (route.scheme === 'standard' && !/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(route.secret)) lines.push({ status: 'fail', label, detail: 'a Standard Webhooks secret is base64 (whsec_…)', fix: `copy the whole whsec_… secret from the sender into triggers.webhooks.${name}.secret` });
    else if (!config.http.listen) lines.push({ status: 'warn', label, detail: 'http.listen is not set: nothing receives it', fix: 'set http.listen (e.g. 127.0.0.1:8787) and put a tunnel or proxy in front of /hooks/' });
    else lines.push({ status: 'ok', label, detail: `POST /hooks/${name}/<token>, at most ${route.per_minute} a minute` });
  }
  const pending = inbox.pending().length;
  if (pending > 0) lines.push({ status: 'warn', label: 'trigger inbox', detail: `${pending} trigger(s) not yet handed to their jobs`, fix: 'start the daemon: it dispatches them at start' });
  return lines;
}
