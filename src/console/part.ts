import type { Part } from '../part.js';
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
      }];
    },
  };
  return { part };
}
