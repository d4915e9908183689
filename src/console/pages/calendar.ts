import { errorMessage } from '../../errors.js';
import type { ConsoleApp, RequestContext, Route } from '../app.js';
import { html } from '../html.js';
import { emptyState } from '../layout.js';

/** The week view: seven days of the person's calendars, expanded on the server; an event from someone else says so. */
export function calendarRoutes(app: ConsoleApp): Route[] {
  return [{ method: 'GET', path: /^\/console\/calendar$/, handle: async (context) => calendarPage(app, context) }];
}

async function calendarPage(app: ConsoleApp, context: RequestContext) {
  const calendar = app.deps.calendar;
  if (!calendar) return app.render(context, { title: 'Calendar', section: 'calendar', body: html`<h1>Calendar</h1>${emptyState('No calendar is configured: add tools.calendar (docs/tools/calendar.md).')}` });
  const from = context.url.searchParams.get('from') ?? undefined;
  let week;
  try {
    week = await calendar.week(from);
  } catch (error) {
    return app.render(context, { title: 'Calendar', section: 'calendar', body: html`<h1>Calendar</h1>${emptyState(`That week cannot be shown: ${errorMessage(error)}`)}` });
  }
  const shift = (days: number) => {
    const date = new Date(`${week.first}T12:00:00Z`);
    date.setUTCDate(date.getUTCDate() + days);
    return `/console/calendar?from=${date.toISOString().slice(0, 10)}`;
  };
  const body = html`<h1>Calendar</h1>
<p class="muted">The week from ${week.first} (${app.deps.config.timezone}) · <a href="${shift(-7)}">previous week</a> · <a href="/console/calendar">this week</a> · <a href="${shift(7)}">next week</a></p>
${week.problems.length > 0 ? html`<p class="flash error">Not read: ${week.problems.join('; ')}</p>` : ''}
<div class="table-wrap"><table class="data week"><thead><tr>${week.days.map((day) => html`<th>${day.label}</th>`)}</tr></thead>
<tbody><tr>${week.days.map((day) => html`<td>${day.events.length === 0 ? html`<span class="muted">—</span>` : html`<ul class="events">${day.events.map((event) => html`<li><strong>${event.time}</strong> ${event.summary}${event.location ? html` <span class="muted">@ ${event.location}</span>` : ''}${event.from ? html` <span class="muted">(from ${event.from})</span>` : ''}</li>`)}</ul>`}</td>`)}</tr></tbody></table></div>`;
  return app.render(context, { title: 'Calendar', section: 'calendar', body });
}
