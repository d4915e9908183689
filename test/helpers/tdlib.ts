// Contract: Telegram's own parser (TDLib's parseTextEntities, through `tdl` and `prebuilt-tdlib`), run offline and
// synchronously — no login, no network. The Bot API parses `parse_mode: HTML` with this very function.
import { createRequire } from 'node:module';

export interface TdEntity {
  offset: number;
  length: number;
  type: { _: string; url?: string; language?: string; user_id?: number };
}
export type TdParsed = { success: true; value: { text: string; entities: TdEntity[] } } | { success: false; error: string };

interface Tdl {
  configure(options: { tdjson: string; verbosityLevel: number }): void;
  execute(request: Record<string, unknown>): Record<string, unknown> | null;
}

const requireCjs = createRequire(import.meta.url);
let tdl: Tdl | undefined;

function load(): Tdl {
  if (tdl) return tdl;
  const loaded = requireCjs('tdl') as Tdl;
  const { getTdjson } = requireCjs('prebuilt-tdlib') as { getTdjson(): string };
  loaded.configure({ tdjson: getTdjson(), verbosityLevel: 0 });
  tdl = loaded;
  return loaded;
}

function run(request: Record<string, unknown>): TdParsed {
  const result = load().execute(request);
  if (!result) return { success: false, error: 'TDLib returned nothing' };
  if (result['_'] === 'error') return { success: false, error: String(result['message']) };
  return { success: true, value: { text: String(result['text']), entities: (result['entities'] as TdEntity[] | undefined) ?? [] } };
}

/** What Telegram makes of a message sent with `parse_mode: HTML`: its text and entities, or the 400 it answers. */
export function tdParseHtml(html: string): TdParsed {
  return run({ _: 'parseTextEntities', text: html, parse_mode: { _: 'textParseModeHTML' } });
}

/**
 * TDLib's input cleaning (fix_formatted_text without trimming) applied to plain text, through parseMarkdown
 * with no entities. Only meaningful for text without Markdown v3 syntax (`*`, `_`, `~`, `|`, `` ` ``, `[`).
 */
export function tdCleanPlain(text: string): TdParsed {
  return run({ _: 'parseMarkdown', text: { _: 'formattedText', text, entities: [] } });
}
