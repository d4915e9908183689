import type { DoctorLine, Part } from '../part.js';
import type { ConsoleDeps } from './types.js';

export type { ConsoleDeps } from './types.js';

/**
 * The web console (`/console` on the `http.listen` endpoint): chat, approvals, activity and usage, jobs, skills,
 * people, memory, health. Made only by the daemon, only when `http.listen` is set; `http.console: false` turns it
 * off. Its code (pages, markdown, the browser assets) is loaded here, when it is on, and not otherwise. Making it
 * mounts its routes on the endpoint (nothing listens until the endpoint starts); `start` registers the console as
 * a chat channel and as the console's approval prompter.
 */
export async function createConsolePart(deps: ConsoleDeps): Promise<{ part: Part | undefined }> {
  const log = deps.log.child({ component: 'console' });
  if (!deps.config.http.console) {
    log.info('console: off (http.console: false)');
    return { part: undefined };
  }
  const { createConsoleServer } = await import('./server.js');
  const server = createConsoleServer(deps);
  deps.mount({ prefix: '/console', home: true, handle: server.handle });
  const part: Part = {
    name: 'console',
    async start() {
      server.start();
      const address = deps.address();
      log.info({ path: '/console', ...(address ? { port: address.port } : {}) }, 'console: ready; run `familiar console` for a login link');
    },
    async stop() {
      server.stop();
    },
    async doctor() {
      const hosts = deps.config.http.hosts;
      return [{
        status: 'ok', label: `console: ${deps.config.http.public_url ?? `http://${deps.config.http.listen ?? ''}`}/console`,
        detail: `login links from familiar console${hosts.length > 0 ? `; also answers to ${hosts.join(', ')}` : ''}`,
      }, ...transportLines(deps), ...server.doctor()];
    },
  };
  return { part };
}

/** The console off loopback without an https public URL answers only this machine (request.ts): say so. */
function transportLines(deps: ConsoleDeps): DoctorLine[] {
  const listen = deps.config.http.listen ?? '';
  const loopback = /^(\d+|127\.[\d.]+:\d+|localhost:\d+|\[::1\]:\d+)$/.test(listen.trim());
  if (loopback || deps.config.http.public_url?.startsWith('https:')) return [];
  return [{
    status: 'warn', label: `console: http.listen ${listen} is open to the network without TLS; the console answers only this machine`,
    fix: 'put Caddy or `tailscale serve` in front and set http.public_url to its https address (docs/web-console.md)',
  }];
}
