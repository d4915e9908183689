import { formatCost, formatNumber } from '../../lib/numbers.js';
import type { ConsoleApp, Route } from '../app.js';
import { usageChart } from '../chart.js';
import { html } from '../html.js';

const PERIODS = [7, 14, 30, 90];

/** Tokens and estimated cost per day and per model (llm.prices), against the daily budget; today's standing. */
export function usageRoutes(app: ConsoleApp): Route[] {
  return [{
    method: 'GET', path: /^\/console\/usage$/,
    async handle(context) {
      const { config, records } = app.deps;
      const asked = Number(context.url.searchParams.get('days') ?? '14');
      const days = PERIODS.includes(asked) ? asked : 14;
      const now = new Date(app.now());
      const series = records.usageByDayAndModel(days, now);
      const today = records.usageToday(now);
      const byModel = new Map<string, { tokens: number; cost: number | undefined }>();
      for (const day of series) {
        for (const model of day.models) {
          const entry = byModel.get(model.model) ?? { tokens: 0, cost: undefined };
          entry.tokens += model.totalTokens;
          if (model.costUsd !== undefined) entry.cost = (entry.cost ?? 0) + model.costUsd;
          byModel.set(model.model, entry);
        }
      }
      const models = [...byModel.keys()].sort();
      const budget = config.llm.daily_token_budget;
      const body = html`<h1>Usage</h1>
<section class="cards">
  <article class="card stat"><h2>Today</h2><p class="big">${formatNumber(today.totalTokens)}</p><p class="muted">tokens in ${today.turns} turn${today.turns === 1 ? '' : 's'} (${formatNumber(today.promptTokens)} prompt + ${formatNumber(today.completionTokens)} completion)</p></article>
  <article class="card stat"><h2>Budget</h2><p class="big">${budget > 0 ? formatNumber(today.remaining ?? 0) : '∞'}</p><p class="muted">${budget > 0 ? `left of ${formatNumber(budget)} today (llm.daily_token_budget); resets at ${app.formatTime(today.resetsAt)}` : 'no daily budget (llm.daily_token_budget: 0)'}</p></article>
  <article class="card stat"><h2>Cost today</h2><p class="big">${today.costUsd !== undefined ? formatCost(today.costUsd) : '—'}</p><p class="muted">${today.costUsd !== undefined ? 'estimated from llm.prices' : 'set llm.prices to estimate cost'}${today.unpricedTokens > 0 ? ` (${formatNumber(today.unpricedTokens)} tokens on unpriced models)` : ''}</p></article>
</section>
<nav class="tabs" aria-label="Period">${PERIODS.map((period) => html`<a href="/console/usage?days=${period}"${period === days ? html` aria-current="page"` : html``}>${period} days</a>`)}</nav>
<figure class="card chart-card">${usageChart(series, budget, models)}
  <figcaption><ul class="legend">${models.map((model, index) => { const entry = byModel.get(model); return html`<li><span class="swatch series-${index % 6}"></span>${model}: ${formatNumber(entry?.tokens ?? 0)} tokens${entry?.cost !== undefined ? ` ≈ ${formatCost(entry.cost)}` : ''}</li>`; })}
  ${budget > 0 ? html`<li><span class="swatch budget"></span>daily budget</li>` : html``}</ul></figcaption>
</figure>
<div class="table-wrap"><table class="data">
<thead><tr><th>Day</th><th class="num">Tokens</th><th class="num">Turns</th><th class="num">Cost</th><th>Models</th></tr></thead>
<tbody>${[...series].reverse().map((day) => {
        const tokens = day.models.reduce((sum, model) => sum + model.totalTokens, 0);
        const turns = day.models.reduce((sum, model) => sum + model.turns, 0);
        const costs = day.models.filter((model) => model.costUsd !== undefined);
        const cost = costs.length > 0 ? costs.reduce((sum, model) => sum + (model.costUsd ?? 0), 0) : undefined;
        return html`<tr${budget > 0 && tokens >= budget ? html` class="over"` : html``}><td>${day.day}</td><td class="num">${formatNumber(tokens)}</td><td class="num">${turns}</td><td class="num">${cost !== undefined ? formatCost(cost) : '—'}</td><td>${day.models.map((model) => `${model.model} ${formatNumber(model.totalTokens)}`).join(', ')}</td></tr>`;
      })}</tbody></table></div>`;
      return app.render(context, { title: 'Usage', section: 'usage', body });
    },
  }];
}
