import { createLoginToken, LOGIN_TTL_MS } from '../console/auth.js';
import { errorMessage } from '../errors.js';
import { checkHttpConfig } from '../http/part.js';
import { baseUrl, clientHost } from '../http/listen-address.js';
import type { Command } from './context.js';
import { parseCommandArgs } from './args.js';

const HOW_TO_ENABLE = 'set http.listen: 127.0.0.1:8484 in config.yaml (or FAMILIAR_HTTP_LISTEN=127.0.0.1:8484 in the .env beside it) and restart the daemon';

/**
 * `familiar console [--json]`: prints a one-time link to the web console. The token is made here, in this process,
 * and only its hash is written to the database the daemon reads; the link carries it after `#`, so it never reaches
 * a server log, and it works once, for 10 minutes.
 */
export const consoleCommand: Command = async (context) => {
  let positionals: string[];
  try {
    positionals = parseCommandArgs(context.args, {}).positionals;
  } catch (error) {
    context.io.stderr.write(`familiar console: ${errorMessage(error)}\nusage: familiar console [--json]\n`);
    return 2;
  }
  if (positionals.length > 0) {
    context.io.stderr.write('usage: familiar console [--json]\n');
    return 2;
  }
  const { config } = context.loadConfig();
  if (!config.http.listen) {
    context.io.stderr.write(`familiar console: the console is served on the daemon's HTTP endpoint, which is off; ${HOW_TO_ENABLE}\n`);
    return 1;
  }
  if (!config.http.console) {
    context.io.stderr.write('familiar console: the console is off (http.console: false in config.yaml); set it to true and restart the daemon\n');
    return 1;
  }
  const address = checkHttpConfig(config.http.listen, config.http.token);
  const local = baseUrl(clientHost(address), address.port);
  const base = (config.http.public_url ?? local).replace(/\/+$/, '');
  const db = context.openDatabase();
  let login: { token: string; expiresAt: number };
  try {
    login = createLoginToken(db);
  } finally {
    db.close();
  }
  const url = `${base}/console/login#token=${login.token}`;
  const running = await daemonAnswers(local);
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify({ url, expiresAt: new Date(login.expiresAt).toISOString(), daemon: running ? 'running' : 'not answering' })}\n`);
    return 0;
  }
  context.io.stdout.write(`Open this link in your browser (it works once, within ${Math.round(LOGIN_TTL_MS / 60_000)} minutes):\n\n  ${url}\n\n`);
  if (!running) context.io.stderr.write(`Note: no daemon answers at ${local} yet; start it with \`familiar start\` (with this config) before opening the link.\n`);
  if (!address.loopback && !config.http.public_url) {
    context.io.stderr.write('Note: http.listen is open to the network over plain http; put the console behind https (a reverse proxy) and set http.public_url.\n');
  }
  return 0;
};

async function daemonAnswers(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}
