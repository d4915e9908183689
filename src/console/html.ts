import { escapeHtml } from '../lib/html-escape.js';
/**
 * HTML built from template literals where every interpolated value is escaped unless it is already `Html`
 * (made by this tag, or by `trusted` for markup produced by a renderer that escapes on its own). Pages are
 * strings assembled on the server: nothing the model, a chat or a file wrote can become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? '';
  for (let index = 0; index < values.length; index += 1) out += render(values[index]) + (strings[index + 1] ?? '');
  return new Html(out);
}

/** Markup that is already safe (the Markdown renderer's output, an SVG built with `html`). */
export function trusted(markup: string): Html {
  return new Html(markup);
}

export { escapeHtml };

function render(value: Value): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map((item: Value) => render(item)).join('');
  return escapeHtml(String(value));
}
