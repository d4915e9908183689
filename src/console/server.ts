import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConsoleApp, type Route } from './app.js';
import { loadAssets } from './assets.js';
import { ConsoleAuth } from './auth.js';
import { ConsoleChat } from './chat.js';
import { EventHub } from './events.js';
import { ConsoleItems } from './items.js';
import { activityRoutes } from './pages/activity.js';
import { appShellRoutes } from './pages/app-shell.js';
import { approvalRoutes, consolePrompter } from './pages/approvals.js';
import { chatRoutes } from './pages/chat.js';
import { healthRoutes } from './pages/health.js';
import { jobRoutes } from './pages/jobs.js';
import { loginRoutes } from './pages/login.js';
import { memoryRoutes } from './pages/memory.js';
import { calendarRoutes } from './pages/calendar.js';
import { pairingRoutes } from './pages/pairing.js';
import { skillRoutes } from './pages/skills.js';
import { pushRoutes } from './pages/push.js';
import { usageRoutes } from './pages/usage.js';
import { ConsolePush } from './push/console-push.js';
import { requestHandler } from './request.js';
import { allowedHostNames } from './security.js';
import type { DoctorLine } from '../part.js';
import { CONSOLE_CHANNEL, CONSOLE_CHAT, type ConsoleDeps } from './types.js';

export interface ConsoleServer {
  app: ConsoleApp;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  start(): void;
  stop(): void;
  doctor(): DoctorLine[];
}

/**
 * The console: routes behind the checks in request.ts and security.ts, on the HTTP endpoint under /console.
 * Contract: `handle` never throws; a failing route is a 500 page and a log line.
 */
export function createConsoleServer(deps: ConsoleDeps): ConsoleServer {
  const log = deps.log.child({ component: 'console' });
  const events = new EventHub();
  const items = new ConsoleItems(deps.db);
  // Logging out of a device takes its notifications with it (`push` is made just below; a logout comes later).
  const auth = new ConsoleAuth(deps.db, { ...(deps.now ? { now: deps.now } : {}), onLogout: (sessionHash) => push.store.removeSession(sessionHash) });
  const push = new ConsolePush({
    db: deps.db, secrets: deps.secrets, log, publicUrl: deps.config.http.public_url, person: CONSOLE_CHAT,
    watching: (topic) => events.listeners(topic) > 0, ...(deps.now ? { now: deps.now } : {}),
  });
  const chat = new ConsoleChat({
    inbound: deps.inbound, conversations: deps.conversations, items, events, secrets: deps.secrets, log, transcribe: deps.transcribe,
    buttons: deps.pressButton !== undefined, unwatched: (reply) => push.unwatched(reply),
  });
  const app = new ConsoleApp(deps, { auth, events, chat, items, assets: loadAssets() });
  const routes: Route[] = [
    ...loginRoutes(app), ...chatRoutes(app), ...approvalRoutes(app), ...activityRoutes(app), ...usageRoutes(app),
    ...jobRoutes(app), ...calendarRoutes(app), ...skillRoutes(app), ...pairingRoutes(app), ...memoryRoutes(app), ...healthRoutes(app, push), ...appShellRoutes(app),
    ...pushRoutes(app, push, CONSOLE_CHAT),
  ];
  const listen = deps.config.http.listen ?? '';
  const hosts = allowedHostNames({
    listenHost: listenHostOf(listen), hosts: deps.config.http.hosts, publicUrl: deps.config.http.public_url,
  });
  const handle = requestHandler({ routes, hosts, auth, log, publicUrl: deps.config.http.public_url });
  const prompter = consolePrompter();
  let unsubscribe: Array<() => void> = [];
  let sweeper: NodeJS.Timeout | undefined;

  return {
    app,
    handle,
    start() {
      auth.sweep();
      sweeper = setInterval(() => auth.sweep(), 3600_000);
      sweeper.unref();
      deps.hub.register(chat);
      deps.hub.register(push.channel);
      deps.approvals.registerPrompter(CONSOLE_CHANNEL, prompter);
      unsubscribe = [
        deps.approvals.questions.subscribe((event) => events.publish('approvals', { type: event.type, id: event.question.id, waiting: deps.approvals.questions.list().length })),
        deps.approvals.questions.subscribe((event) => push.onQuestion(event)),
        ...(deps.logs ? [deps.logs.subscribe((line) => events.publish('logs', { line: app.redact(line) }))] : []),
      ];
    },
    stop() {
      if (sweeper) clearInterval(sweeper);
      for (const stop of unsubscribe) stop();
      unsubscribe = [];
      deps.approvals.unregisterPrompter(CONSOLE_CHANNEL, prompter);
      deps.hub.unregister(CONSOLE_CHANNEL);
      deps.hub.unregister(push.channel.name);
      events.close();
    },
    doctor: () => push.doctor(),
  };
}

function listenHostOf(listen: string): string {
  const text = listen.trim();
  if (/^\d+$/.test(text)) return '127.0.0.1';
  if (text.startsWith('[')) return text.slice(1, text.indexOf(']'));
  return text.slice(0, text.lastIndexOf(':'));
}
