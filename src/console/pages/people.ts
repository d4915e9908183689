import type { ConsoleApp } from '../app.js';
import { html, type Html } from '../html.js';
import { formatNumber } from '../../lib/numbers.js';

/**
 * The household on the People page (docs/household.md): each person, their role, their ids per channel, their time
 * zone and today's tokens against their budget. Changing it is `familiar people add|link|remove` (config.yaml).
 */
export function householdSection(app: ConsoleApp): Html | undefined {
  const people = Object.entries(app.deps.config.people ?? {});
  if (people.length === 0) return undefined;
  const now = new Date(app.deps.now?.() ?? Date.now());
  const tokens = (name: string): number | undefined => app.deps.records.personTokensToday?.(name, now);
  return html`<h2>Household</h2>
<p class="muted">Each person has their own memory folder (people/NAME/), jobs, approvals and budget; shared/ is read by everyone. Change it with <code>familiar people add|link|remove</code>.</p>
<div class="table-wrap"><table class="data"><thead><tr><th>Name</th><th>Role</th><th>Ids</th><th>Time zone</th><th>Tokens today</th></tr></thead>
<tbody>${people.map(([name, person]) => {
    const used = tokens(name);
    const budget = person.budget.daily_tokens ?? 0;
    const ids = Object.entries(person.ids).map(([channel, value]) => (value === true ? channel : `${channel} ${value.join(', ')}`)).join('; ');
    return html`<tr><td>${name}</td><td>${person.role}</td><td>${ids || '—'}</td><td>${person.timezone ?? app.deps.config.timezone}</td>
<td>${used === undefined ? '—' : formatNumber(used)}${budget > 0 ? ` of ${formatNumber(budget)}` : ''}</td></tr>`;
  })}</tbody></table></div>`;
}
