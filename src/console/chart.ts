import type { ModelDay } from '../usage/usage.js';
import { html, type Html } from './html.js';
import { formatNumber } from '../lib/numbers.js';

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 12;
/** Series colours are CSS classes (`series-0` …), so the chart follows the light and dark themes. */
const SERIES = 6;

/**
 * Tokens per day as stacked bars, one colour per model, with the daily budget as a dashed line: an SVG drawn on
 * the server (no chart library, no script). Every bar has a <title> (the browser's tooltip and screen readers).
 */
export function usageChart(days: ReadonlyArray<{ day: string; models: readonly ModelDay[] }>, budget: number, models: readonly string[]): Html {
  const totals = days.map((entry) => entry.models.reduce((sum, model) => sum + model.totalTokens, 0));
  const top = niceCeiling(Math.max(1, ...totals, budget));
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (tokens: number) => TOP + plotHeight - (tokens / top) * plotHeight;
  const labelEvery = Math.ceil(days.length / 10);
  const ticks = [0, top / 2, top];
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">Tokens per day${budget > 0 ? `, against the daily budget of ${formatNumber(budget)}` : ''}</title>
${ticks.map((tick) => html`<line class="grid" x1="${LEFT}" x2="${WIDTH - 8}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}"></line><text class="axis" x="${LEFT - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${short(tick)}</text>`)}
${days.map((entry, index) => {
    const x = LEFT + index * slot + (slot - barWidth) / 2;
    let base = 0;
    const bars = entry.models.map((model) => {
      const from = base;
      base += model.totalTokens;
      const series = Math.max(0, models.indexOf(model.model)) % SERIES;
      return html`<rect class="bar series-${series}" x="${x.toFixed(1)}" y="${y(base).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0, y(from) - y(base)).toFixed(1)}"><title>${entry.day} · ${model.model}: ${formatNumber(model.totalTokens)} tokens${model.costUsd !== undefined ? ` ≈ $${model.costUsd.toFixed(4)}` : ''}</title></rect>`;
    });
    const label = index % labelEvery === 0 || index === days.length - 1
      ? html`<text class="axis" x="${(x + barWidth / 2).toFixed(1)}" y="${HEIGHT - 10}" text-anchor="middle">${entry.day.slice(5)}</text>`
      : html``;
    return html`${bars}${label}`;
  })}
${budget > 0 ? html`<line class="budget" x1="${LEFT}" x2="${WIDTH - 8}" y1="${y(budget).toFixed(1)}" y2="${y(budget).toFixed(1)}"></line><text class="budget-label" x="${WIDTH - 10}" y="${(y(budget) - 4).toFixed(1)}" text-anchor="end">daily budget ${short(budget)}</text>` : html``}
</svg>`;
}

/** 1, 2 or 5 times a power of ten, at or above `value`. */
function niceCeiling(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function short(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(value % 1_000_000 === 0 ? 0 : 1)}M`;
  if (value >= 1000) return `${(value / 1000).toFixed(value % 1000 === 0 ? 0 : 1)}k`;
  return String(Math.round(value));
}
