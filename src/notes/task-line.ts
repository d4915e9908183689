/**
 * One task line in the Obsidian Tasks emoji format, with the reminder field of the Obsidian Reminder plugin:
 *
 *   - [ ] Pay rent 🔁 every month on the 1st ⏫ 📅 2026-12-01 ⏰ 2026-12-01 09:00 🆔 k3x9p2 #home
 *
 * Fields: 📅 due, ⏳ scheduled, 🛫 start, ➕ created, ✅ done, ❌ cancelled, 🔁 recurrence, 🆔 id, ⛔ depends on,
 * priorities 🔺 ⏫ 🔼 🔽 ⏬, ⏰ reminder. Edits replace only the characters of the field they change; anything
 * else on the line (unknown emoji, tags, links, spacing, a trailing ^block-id) stays as it was.
 */

export type Priority = 'highest' | 'high' | 'medium' | 'low' | 'lowest';
export type DateField = 'due' | 'scheduled' | 'start' | 'created' | 'done' | 'cancelled';
export type FieldKind = DateField | 'recurrence' | 'id' | 'dependsOn' | 'priority' | 'reminder';

export const PRIORITY_EMOJI: Readonly<Record<Priority, string>> = { highest: '🔺', high: '⏫', medium: '🔼', low: '🔽', lowest: '⏬' };
export const DATE_EMOJI: Readonly<Record<DateField, string>> = { due: '📅', scheduled: '⏳', start: '🛫', created: '➕', done: '✅', cancelled: '❌' };
const FIELD_EMOJI: Readonly<Record<Exclude<FieldKind, DateField | 'priority'>, string>> = { recurrence: '🔁', id: '🆔', dependsOn: '⛔', reminder: '⏰' };

export interface Field {
  kind: FieldKind;
  /** Offsets in the line's text after the checkbox. */
  start: number;
  end: number;
  value: string;
}

export interface ParsedTask {
  /** `  - [ ] ` — indentation, bullet and checkbox, kept as written. */
  prefix: string;
  status: string;
  /** Everything after the checkbox. */
  text: string;
  fields: Field[];
  description: string;
}

// The emoji that start a field; a recurrence runs until the next of them (or a tag, or a block id).
const STARTERS = '📅📆🗓⏳⌛🛫➕✅❌🔁🆔⛔🏁⏰🔺⏫🔼🔽⏬';
const VS = '\\uFE0F?';
const DATE = '(\\d{4}-\\d{2}-\\d{2})';
const FIELD_PATTERNS: ReadonlyArray<{ kind: FieldKind; pattern: string }> = [
  { kind: 'due', pattern: `(?:📅|📆|🗓)${VS}\\s*${DATE}` },
  { kind: 'scheduled', pattern: `(?:⏳|⌛)${VS}\\s*${DATE}` },
  { kind: 'start', pattern: `🛫${VS}\\s*${DATE}` },
  { kind: 'created', pattern: `➕${VS}\\s*${DATE}` },
  { kind: 'done', pattern: `✅${VS}\\s*${DATE}` },
  { kind: 'cancelled', pattern: `❌${VS}\\s*${DATE}` },
  { kind: 'reminder', pattern: `⏰${VS}\\s*(\\d{4}-\\d{2}-\\d{2}(?:\\s+\\d{1,2}:\\d{2})?)` },
  { kind: 'recurrence', pattern: `🔁${VS}\\s*([^${STARTERS}#^\\n]*?[^\\s${STARTERS}#^])(?=\\s*(?:[${STARTERS}#^]|$))` },
  { kind: 'id', pattern: `🆔${VS}\\s*([a-zA-Z0-9_-]+)` },
  { kind: 'dependsOn', pattern: `⛔${VS}\\s*([a-zA-Z0-9_,-]+)` },
  { kind: 'priority', pattern: `(🔺|⏫|🔼|🔽|⏬)${VS}` },
];
const FIELDS = new RegExp(FIELD_PATTERNS.map(({ pattern }) => `(${pattern})`).join('|'), 'gu');
const TASK = /^(\s*(?:>\s*)*(?:[-*+]|\d+[.)])\s+\[(.)\]\s)(.*)$/u;
const BLOCK_ID = /\s\^[a-zA-Z0-9-]+\s*$/;

const PRIORITY_BY_EMOJI = new Map<string, Priority>(Object.entries(PRIORITY_EMOJI).map(([name, emoji]) => [emoji, name as Priority]));

/** Parses a line; undefined when it is not a checklist item. Contract: never throws. */
export function parseTaskLine(line: string): ParsedTask | undefined {
  const match = TASK.exec(line);
  if (!match) return undefined;
  const prefix = match[1] ?? '';
  const status = match[2] ?? ' ';
  const text = match[3] ?? '';
  const fields: Field[] = [];
  for (const found of text.matchAll(FIELDS)) {
    // Groups come in pairs per pattern (the whole field, then its value); find which one matched.
    for (let index = 0; index < FIELD_PATTERNS.length; index += 1) {
      const whole = found[1 + index * 2];
      if (whole === undefined) continue;
      const kind = (FIELD_PATTERNS[index] as { kind: FieldKind }).kind;
      const value = found[2 + index * 2] ?? '';
      fields.push({ kind, start: found.index, end: found.index + whole.length, value: kind === 'priority' ? (PRIORITY_BY_EMOJI.get(value) ?? value) : value.trim() });
      break;
    }
  }
  return { prefix, status, text, fields, description: describe(text, fields) };
}

function describe(text: string, fields: readonly Field[]): string {
  let out = '';
  let at = 0;
  for (const field of fields) {
    out += `${text.slice(at, field.start)} `;
    at = field.end;
  }
  out += text.slice(at);
  return out.replace(BLOCK_ID, '').replace(/\s+/g, ' ').trim();
}

export function field(task: ParsedTask, kind: FieldKind): string | undefined {
  return task.fields.find((entry) => entry.kind === kind)?.value;
}

/** The text of a field as written in a line. */
export function fieldText(kind: FieldKind, value: string): string {
  if (kind === 'priority') return PRIORITY_EMOJI[value as Priority];
  if (kind in DATE_EMOJI) return `${DATE_EMOJI[kind as DateField]} ${value}`;
  return `${FIELD_EMOJI[kind as keyof typeof FIELD_EMOJI]} ${value}`;
}

/**
 * The line with one field set (replaced where it stands, or added at the end before a ^block-id) or removed
 * (`value` undefined). Nothing else on the line changes.
 */
export function setField(line: string, kind: FieldKind, value: string | undefined): string {
  const task = parseTaskLine(line);
  if (!task) return line;
  const existing = task.fields.find((entry) => entry.kind === kind);
  let text = task.text;
  if (existing) {
    if (value === undefined) {
      // Take one space before the field with it, so no double space is left behind.
      const start = existing.start > 0 && text[existing.start - 1] === ' ' ? existing.start - 1 : existing.start;
      text = text.slice(0, start) + text.slice(existing.end);
    } else {
      text = text.slice(0, existing.start) + fieldText(kind, value) + text.slice(existing.end);
    }
  } else if (value !== undefined) {
    const block = BLOCK_ID.exec(text);
    const at = block ? block.index : text.trimEnd().length;
    const before = text.slice(0, at);
    text = `${before}${before === '' || before.endsWith(' ') ? '' : ' '}${fieldText(kind, value)}${text.slice(at)}`;
  }
  return task.prefix + text;
}

/** The line with its checkbox set to `status` (` `, `x`, `-`, `/`). */
export function setStatus(line: string, status: string): string {
  const task = parseTaskLine(line);
  if (!task) return line;
  const bracket = task.prefix.lastIndexOf('[');
  return `${task.prefix.slice(0, bracket + 1)}${status}${task.prefix.slice(bracket + 2)}${task.text}`;
}

/** The line with a new description; fields stay as written when they all follow the description. */
export function setDescription(line: string, description: string): string {
  const task = parseTaskLine(line);
  if (!task) return line;
  const first = task.fields[0];
  const block = BLOCK_ID.exec(task.text);
  const descriptionEnd = first ? first.start : block ? block.index : task.text.length;
  const head = task.text.slice(0, descriptionEnd);
  const interleaved = task.fields.length > 0 && /\S/.test(between(task.text, task.fields));
  if (!interleaved) {
    const spacing = /\s*$/.exec(head)?.[0] ?? '';
    return `${task.prefix}${description}${first || block ? spacing || ' ' : ''}${task.text.slice(descriptionEnd)}`;
  }
  // Words between fields: rebuild as description followed by the fields in their order.
  const fields = task.fields.map((entry) => task.text.slice(entry.start, entry.end)).join(' ');
  return `${task.prefix}${description} ${fields}${block ? block[0] : ''}`;
}

function between(text: string, fields: readonly Field[]): string {
  let out = '';
  for (let index = 0; index + 1 < fields.length; index += 1) {
    out += text.slice((fields[index] as Field).end, (fields[index + 1] as Field).start);
  }
  const last = fields[fields.length - 1];
  if (last) out += text.slice(last.end).replace(BLOCK_ID, '').replace(/#[^\s#]+/g, '');
  return out.replace(/#[^\s#]+/g, '');
}

/** Removes what would make text from outside look like task fields or more lines (mail, a model's proposal). */
export function plainDescription(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(new RegExp(`[${STARTERS}]\\uFE0F?`, 'gu'), '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+\[.\]\s*/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
