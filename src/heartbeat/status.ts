import type { Config } from '../config/schema.js';
import { formatNumber } from '../lib/numbers.js';
import type { HeartbeatStatus } from './control.js';

/** What `familiar heartbeat status` and `/heartbeat` show. */
export function formatStatus(status: HeartbeatStatus, config: Pick<Config, 'heartbeat'>): string {
  const settings = config.heartbeat;
  if (!settings) return 'Heartbeat: off (add a heartbeat: section to the config, e.g. every: 30m).';
  const when = (at: number | undefined): string => (at === undefined ? 'never' : new Date(at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');
  const next = status.lastBeat !== undefined ? when(status.lastBeat + settings.every * 1000) : 'within a minute of the start';
  return [
    `Heartbeat: ${status.state}${status.why !== undefined ? ` (${status.why})` : ''}, every ${settings.every} s.`,
    `Last beat ${when(status.lastBeat)}; next ${status.state === 'on' ? next : 'after resume'}; last change ${when(status.lastChange)}.`,
    `Today (${status.today.day}): ${formatNumber(status.today.tokens)} tokens in ${status.today.calls} model call(s)${settings.day_tokens > 0 ? ` of ${formatNumber(settings.day_tokens)} (heartbeat.day_tokens)` : ''}.`,
  ].join('\n');
}
