/**
 * One line on a webhook's payload, for the heartbeat's inbox probe, intents and `familiar triggers list`. GitHub's
 * events name their action, repository and subject; any other JSON gives its first short string fields; anything
 * else its first characters. Outside words, shown as such.
 */
export function summarizeWebhook(route: string, event: string | undefined, body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `webhook ${route}: ${oneLine(body).slice(0, 200)}`;
  }
  const payload = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (event !== undefined) {
    const action = typeof payload.action === 'string' ? ` ${payload.action}` : '';
    const repository = field(payload.repository, 'full_name');
    const subject = field(payload.issue, 'title') ?? field(payload.pull_request, 'title') ?? field(payload.head_commit, 'message') ?? field(payload.release, 'name');
    return `webhook ${route}: github ${event}${action}${repository !== undefined ? ` in ${repository}` : ''}${subject !== undefined ? `: ${oneLine(subject).slice(0, 200)}` : ''}`;
  }
  const strings = Object.entries(payload).filter((entry): entry is [string, string] => typeof entry[1] === 'string').slice(0, 4);
  return `webhook ${route}: ${strings.map(([key, value]) => `${key}=${oneLine(value).slice(0, 80)}`).join(' ') || oneLine(body).slice(0, 200)}`;
}

function field(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const inner = (value as Record<string, unknown>)[key];
  return typeof inner === 'string' ? inner : undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
