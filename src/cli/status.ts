import { request } from 'node:http';
import { checkHttpConfig } from '../http/part.js';
import { baseUrl, clientHost } from '../http/listen-address.js';
import type { DaemonStatus } from '../http/status.js';
import { ConfigError, errorMessage } from '../errors.js';
import type { Command, CommandContext } from './context.js';
import { loadRawConfig } from '../config/load.js';
import { parseCommandArgs } from './args.js';
import { optionsOf } from './spec.js';

const HOW_TO_ENABLE = 'set http.listen: 127.0.0.1:8484 in config.yaml (or FAMILIAR_HTTP_LISTEN=127.0.0.1:8484 with the example config), restart the daemon, then run familiar status again';

/**
 * `familiar status [--json] [--ready]`: a running daemon's state through its HTTP endpoint (`http.listen`).
 * `--ready` asks /readyz only (exit 0 when ready): the Docker healthcheck.
 */
export const statusCommand: Command = async (context) => {
  const { values, positionals } = parseCommandArgs(context.args, optionsOf('status'));
  if (positionals.length > 0) {
    context.io.stderr.write('usage: familiar status [--json] [--ready]\n');
    return 2;
  }
  const endpoint = httpSettings(context);
  if (!endpoint) return 2;
  const config = { http: endpoint };
  if (!config.http.listen) {
    context.io.stderr.write(`familiar status: the daemon's status endpoint is off; ${HOW_TO_ENABLE}\n`);
    return 1;
  }
  const address = checkHttpConfig(config.http.listen, config.http.token);
  const base = baseUrl(clientHost(address), address.port);
  const headers: Record<string, string> = config.http.token ? { Authorization: `Bearer ${config.http.token}` } : {};
  const path = values.ready === true ? '/readyz' : '/status';
  let response: LocalResponse;
  try {
    response = await getLocal(`${base}${path}`, headers, 5000);
  } catch (error) {
    const cause = (error as { code?: string }).code ?? errorMessage(error);
    context.io.stderr.write(`familiar status: no daemon answers at ${base} (${cause}); is "familiar start" running with this config?\n`);
    return 1;
  }
  const { body } = response;
  if (response.status === 401) {
    context.io.stderr.write(`familiar status: the daemon at ${base} refused the token; http.token here must match the daemon's\n`);
    return 1;
  }
  if (values.ready === true) {
    const reasons = Array.isArray(body.reasons) ? `: ${body.reasons.join('; ')}` : '';
    (response.ok ? context.io.stdout : context.io.stderr).write(`${response.ok ? 'ready' : `not ready${reasons}`}\n`);
    return response.ok ? 0 : 1;
  }
  if (!response.ok) {
    context.io.stderr.write(`familiar status: ${base}/status answered ${response.status}\n`);
    return 1;
  }
  context.io.stdout.write(context.options.json ? `${JSON.stringify(body, null, 2)}\n` : formatStatus(body as unknown as DaemonStatus));
  return 0;
};

interface LocalResponse {
  status: number;
  ok: boolean;
  /** The JSON body, or {} when it was not JSON. */
  body: Record<string, unknown>;
}

/**
 * One GET to the daemon on this machine, through node:http: fetch would load undici (and V8 would compile its
 * WebAssembly HTTP parser) for a single local request, about 14 ms and a few MiB of a command that should be quick.
 */
function getLocal(url: string, headers: Record<string, string>, timeoutMs: number): Promise<LocalResponse> {
  return new Promise((resolve, reject) => {
    // No keep-alive agent: one request, and a socket kept open would hold the command (or a test process) to a daemon gone.
    const req = request(url, { headers, timeout: timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          // Not JSON (a proxy's error page): the status code says enough.
        }
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, body });
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

/**
 * `http.listen` and `http.token` from the config. A config with a mistake is still read for them (the daemon refused
 * it and runs on the one it had, which is what this command is asked about); its problems are said first.
 */
function httpSettings(context: CommandContext): { listen: string; token: string } | undefined {
  try {
    const { http } = context.loadConfig().config;
    return { listen: http.listen ?? '', token: http.token };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    let raw: Record<string, unknown>;
    try {
      raw = loadRawConfig({ configPath: context.options.config });
    } catch {
      context.io.stderr.write(`${error.message}\n`);
      return undefined;
    }
    context.io.stderr.write(`note: the config on disk has problems (a running daemon keeps the config it had):\n${error.message}\n`);
    const http = (raw.http ?? {}) as { listen?: unknown; token?: unknown };
    return { listen: typeof http.listen === 'string' ? http.listen : '', token: typeof http.token === 'string' ? http.token : '' };
  }
}

function formatStatus(status: DaemonStatus): string {
  const today = status.llm.today;
  const budget = status.llm.dailyTokenBudget > 0 ? ` of ${status.llm.dailyTokenBudget}` : '';
  const jobs = status.jobs
    ? `${status.jobs.total} job(s)${status.jobs.enabled !== undefined ? `, ${status.jobs.enabled} enabled` : ''}${status.jobs.runsLast24h ? `; runs in 24 h: ${Object.entries(status.jobs.runsLast24h).map(([key, count]) => `${key} ${count}`).join(', ') || 'none'}` : ''}`
    : 'no scheduler';
  const lines = [
    `familiar ${status.version}, pid ${status.pid}, up ${formatDuration(status.uptimeSeconds)} (since ${status.startedAt})`,
    `ready:    ${status.ready && status.failedModules.length === 0 ? 'yes' : `no${status.failedModules.length > 0 ? ` (failed: ${status.failedModules.join(', ')})` : ' (starting)'}`}`,
    `modules:  ${status.modules.join(', ') || 'none'}`,
    `channels: ${status.channels.running.join(', ') || 'none running'}${status.channels.configured.length > 0 ? ` (configured: ${status.channels.configured.join(', ')})` : ''}`,
    `queue:    ${status.queue.active} running, ${status.queue.pending} waiting`,
    `llm:      ${status.llm.model}; today ${today.turns} turn(s), ${today.totalTokens}${budget} tokens (${today.promptTokens} prompt, ${today.completionTokens} completion)`,
    `jobs:     ${jobs}`,
    `memory:   ${status.memory.rssMb} MB resident, ${status.memory.heapUsedMb} MB heap`,
    ...configLines(status),
  ];
  return `${lines.join('\n')}\n`;
}

/** The config: when it was read, what waits for a restart, and a refused reload with its problems. */
function configLines(status: DaemonStatus): string[] {
  const config = status.config;
  if (!config) return [];
  const lines = [`config:   ${config.path}, read ${config.loadedAt}${config.reloads > 0 ? ` (${config.reloads} reload${config.reloads === 1 ? '' : 's'})` : ''}`];
  if (config.pendingRestart.length > 0) lines.push(`          needs a restart to take effect: ${config.pendingRestart.join(', ')}`);
  if (config.refused) {
    lines.push(`          reload REFUSED at ${config.refused.at} (${config.refused.reason}); running on the config above:`);
    for (const problem of config.refused.problems) lines.push(`            ${problem}`);
  }
  return lines;
}

function formatDuration(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return `${minutes}m ${seconds % 60}s`;
}
