import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/schema.js';
import { AppError, ConfigError, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Part } from '../part.js';
import { parseListenAddress, type ListenAddress } from './listen-address.js';
import type { Mount } from './server.js';
import type { DaemonState } from './status.js';

/** The running endpoint's part; `address()` is where it listens once started (port 0 picks one). */
/** The HTTP endpoint: its part, where it listens once started, and how another part serves pages on it. */
export interface HttpEndpoint {
  part: Part;
  address(): { host: string; port: number } | undefined;
  /** Serves another part's pages under `prefix` (the console); call before start. */
  mount(mount: Mount): void;
}

const MIN_TOKEN_CHARS = 16;

/**
 * The operations endpoint (`http.listen`): /healthz, /readyz, /status for healthchecks and `familiar status`.
 * Contract: throws ConfigError when `http.listen` is malformed, or not loopback and `http.token` is empty,
 * so the daemon refuses to start rather than expose its state to the network.
 */
export async function createHttpPart(deps: { config: Config; log: Logger; state: DaemonState }): Promise<HttpEndpoint | { part: undefined }> {
  const app = deps.state;
  const { listen, token } = deps.config.http;
  if (!listen) {
    deps.log.info('http: no http.listen set; /healthz, /readyz and /status are off (and familiar status cannot reach the daemon)');
    return { part: undefined };
  }
  const address = checkHttpConfig(listen, token);
  const [{ createOpsServer }, { collectStatus }] = await Promise.all([import('./server.js'), import('./status.js')]);
  const log = deps.log.child({ component: 'http' });
  let server: Server | undefined;
  let bound: AddressInfo | undefined;
  let stopping = false;
  const mounts: Mount[] = [];

  const part: Part = {
    name: 'http',
    async start() {
      server = createOpsServer({
        token,
        log,
        mounts,
        handlers: {
          health: () => ({ ok: true }),
          ready: () => readiness(app, stopping),
          status: () => collectStatus(app),
        },
      });
      // A slow or idle client must not hold a connection (and the shutdown) open.
      server.requestTimeout = 10_000;
      server.keepAliveTimeout = 5_000;
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen({ host: address.host, port: address.port }, () => {
          listening.off('error', reject);
          resolve();
        });
      }).catch((error: unknown) => {
        server = undefined;
        throw new AppError('HTTP_LISTEN_FAILED', `http.listen ${listen}: cannot listen (${errorMessage(error)}); choose a free port`, { cause: error });
      });
      listening.on('error', (error) => log.error({ err: error }, 'http: server error'));
      bound = listening.address() as AddressInfo;
      log.info({ host: bound.address, port: bound.port, token: token ? 'required' : 'none' }, 'http: listening for /healthz, /readyz, /status');
    },
    async stop() {
      stopping = true;
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        closing.closeAllConnections();
      });
      log.info('http: stopped listening');
    },
    async doctor() {
      const scope = address.loopback ? 'loopback only' : `open to the network, token ${token ? 'set' : 'MISSING'}`;
      return [{ status: 'ok', label: `http: ${listen} (${scope})` }];
    },
  };
  return {
    part,
    address: () => (bound ? { host: bound.address, port: bound.port } : undefined),
    mount: (mount) => {
      mounts.push(mount);
    },
  };
}

/** Validates `http.listen` and `http.token` together; exported for `familiar status`, which reads the same keys. */
export function checkHttpConfig(listen: string, token: string): ListenAddress {
  const address = parseListenAddress(listen);
  if (!address.loopback && !token) {
    throw new ConfigError(
      'http.token',
      `is required when http.listen (${listen}) is not a loopback address; set it (e.g. token: \${FAMILIAR_HTTP_TOKEN} with a long random value) or listen on 127.0.0.1`,
    );
  }
  if (token && token.length < MIN_TOKEN_CHARS) {
    throw new ConfigError('http.token', `is too short (${token.length} characters); use at least ${MIN_TOKEN_CHARS} random characters, e.g. from: openssl rand -hex 24`);
  }
  return address;
}

function readiness(app: DaemonState, stopping: boolean): { ok: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (stopping) reasons.push('shutting down');
  if (!app.started()) reasons.push('modules still starting');
  for (const name of app.failedParts()) reasons.push(`${name} failed to start (see the log)`);
  try {
    app.db.prepare('SELECT 1').get();
  } catch (error) {
    reasons.push(`database does not answer: ${errorMessage(error)}`);
  }
  return { ok: reasons.length === 0, reasons };
}
