import type { DoctorLine } from '../../part.js';
import { errorMessage } from '../../errors.js';
import type { ConsoleApp, RequestContext, Route } from '../app.js';
import { html, type Html } from '../html.js';
import { emptyState } from '../layout.js';
import type { ConsolePush } from '../push/console-push.js';
import { deviceCard } from './push.js';

const MARK: Record<DoctorLine['status'], string> = { ok: '✓', fail: '✗', warn: '!', skip: '–' };
const LOG_LINES = 200;

/** Health: what `familiar status` and `familiar doctor` say, and the daemon's last log lines, live. */
export function healthRoutes(app: ConsoleApp, push: ConsolePush): Route[] {
  return [{ method: 'GET', path: /^\/console\/health$/, handle: async (context) => healthPage(app, push, context) }];
}

async function healthPage(app: ConsoleApp, push: ConsolePush, context: RequestContext) {
  const runDoctor = context.url.searchParams.get('doctor') === '1';
  let doctor: Html = html`<p><a class="button" href="/console/health?doctor=1#doctor">Run the checks</a> <span class="muted">(config, the LLM, channels, Docker, mail: what <code>familiar doctor</code> checks; it asks the LLM server once)</span></p>`;
  if (runDoctor) {
    try {
      const lines = await app.deps.health.doctor();
      const failed = lines.filter((line) => line.status === 'fail').length;
      doctor = html`<ul class="doctor">${lines.map((line) => html`<li class="${line.status}"><span class="mark">${MARK[line.status]}</span> ${app.redact(line.label)}${line.detail ? html`: ${app.redact(line.detail)}` : html``}${line.fix && line.status !== 'ok' ? html` <em>— ${app.redact(line.fix)}</em>` : html``}</li>`)}</ul>
<p class="${failed > 0 ? 'error' : 'muted'}">${failed > 0 ? `${failed} check(s) failed.` : 'No check failed.'} <a href="/console/health?doctor=1#doctor">Run again</a></p>`;
    } catch (error) {
      doctor = html`<p class="error">The checks could not run: ${app.redact(errorMessage(error))}</p>`;
    }
  }
  const status = app.deps.health.status() as Record<string, unknown>;
  const logs = app.deps.logs?.recent(LOG_LINES) ?? [];
  const body = html`<h1>Health</h1>
<section class="card"><h2>Status</h2>${statusView(app, status)}</section>
${deviceCard(push)}
<section class="card" id="doctor"><h2>Checks</h2>${doctor}</section>
<section class="card"><h2>Log <small class="muted">(the last ${LOG_LINES} lines, live; secrets redacted)</small></h2>
  <label class="inline-label">Show <select id="log-level"><option value="10">everything</option><option value="30" selected>info and above</option><option value="40">warnings and errors</option></select></label>
  ${app.deps.logs ? html`<ol class="log" id="log" data-timezone="${app.deps.config.timezone}">${logs.map((line) => logLine(app, line))}</ol>` : emptyState('This daemon keeps no log lines in memory.')}
</section>`;
  return app.render(context, { title: 'Health', section: 'health', body });
}

function statusView(app: ConsoleApp, status: Record<string, unknown>): Html {
  const get = (path: string): unknown => path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), status);
  const list = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value.join(', ') : 'none');
  const rows: Array<[string, string]> = [
    ['Version', String(get('version') ?? '?')],
    ['Running since', typeof get('startedAt') === 'string' ? app.formatTime(Date.parse(String(get('startedAt')))) : '?'],
    ['Ready', get('ready') === true ? 'yes' : 'not yet'],
    ['Parts', list(get('modules'))],
    ['Failed to start', list(get('failedModules'))],
    ['Channels running', list(get('channels.running'))],
    ['Turns', `${String(get('queue.active') ?? 0)} running, ${String(get('queue.pending') ?? 0)} waiting`],
    ['Model', String(get('llm.model') ?? '?')],
    ['Tokens today', String(get('llm.today.totalTokens') ?? 0)],
    ['Jobs', get('jobs') ? `${String(get('jobs.total') ?? 0)} (${String(get('jobs.enabled') ?? 0)} enabled)` : 'no scheduler'],
    ['Memory', `${String(get('memory.rssMb') ?? '?')} MB resident, ${String(get('memory.heapUsedMb') ?? '?')} MB heap`],
  ];
  return html`<dl class="facts">${rows.map(([label, value]) => html`<dt>${label}</dt><dd>${app.redact(value)}</dd>`)}</dl>`;
}

/** One JSON log line as the page shows it (the page's script formats live ones the same way). */
function logLine(app: ConsoleApp, raw: string): Html {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(app.redact(raw)) as Record<string, unknown>;
  } catch {
    return html`<li data-level="30"><span class="msg">${app.redact(raw)}</span></li>`;
  }
  const { level, time, msg, component, pid: _pid, hostname: _hostname, ...rest } = entry;
  const extra = Object.keys(rest).length > 0 ? JSON.stringify(rest) : '';
  return html`<li data-level="${String(level ?? 30)}"><time>${typeof time === 'number' ? app.formatTime(time) : ''}</time> <span class="level l${String(level ?? 30)}">${levelName(level)}</span> ${component ? html`<span class="component">${String(component)}</span> ` : html``}<span class="msg">${String(msg ?? '')}</span> ${extra ? html`<code class="extra">${extra.slice(0, 500)}</code>` : html``}</li>`;
}

function levelName(level: unknown): string {
  return ({ 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' } as Record<number, string>)[Number(level)] ?? 'info';
}
