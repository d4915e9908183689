import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { Result } from '../lib/result.js';
import type { ChatCommandTurn } from '../part.js';
import { wrapExternal } from '../tools/external.js';

/** Telegram's limit for a command name, and what the chat routers accept. */
const COMMAND_CHARS = 32;

/**
 * The chat command for a server's prompt: `<server>_<prompt>`, lower case, every other character `_`, at most 32
 * characters (Telegram's rule, and what the routers match). `taken` says whether a name is used already; a clash
 * gets `_2`, `_3`, … Undefined when nothing usable is left.
 */
export function promptCommandName(server: string, prompt: string, taken: (name: string) => boolean): string | undefined {
  const base = `${server}_${prompt}`.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
  if (base === '' || !base.includes('_')) return undefined;
  for (let index = 1; index < 100; index += 1) {
    const suffix = index === 1 ? '' : `_${index}`;
    const name = `${base.slice(0, COMMAND_CHARS - suffix.length).replace(/_$/, '')}${suffix}`;
    if (!taken(name)) return name;
  }
  return undefined;
}

/** `/everything_args_prompt city=… [state=…]`. */
export function promptUsage(command: string, prompt: Pick<Prompt, 'arguments'>): string {
  const args = (prompt.arguments ?? []).map((argument) => (argument.required ? `${argument.name}=…` : `[${argument.name}=…]`));
  return `/${command}${args.length > 0 ? ` ${args.join(' ')}` : ''}`;
}

/** The usage line and what each argument means, for a reply that asks for the arguments again. */
export function promptHelp(command: string, prompt: Pick<Prompt, 'arguments' | 'description'>): string {
  const lines = [`Usage: ${promptUsage(command, prompt)}`];
  for (const argument of prompt.arguments ?? []) {
    lines.push(`  ${argument.name}${argument.required ? '' : ' (optional)'}${argument.description ? `: ${oneLine(argument.description, 160)}` : ''}`);
  }
  if ((prompt.arguments ?? []).length > 1) lines.push('Values with spaces go in quotes: name="New York".');
  return lines.join('\n');
}

/**
 * The text after a prompt's command as the arguments it declares:
 * - no arguments declared: nothing may follow;
 * - one argument: the whole text is its value (quotes around it are dropped), unless written `name=value`;
 * - several: `name=value` pairs and plain values, which fill the unnamed arguments in declared order; a value with
 *   spaces goes in double quotes (straight or curly, as phones type them).
 * Unknown names, a name given twice, values left over and missing required arguments are refused with the reason.
 */
export function parsePromptArguments(text: string, prompt: Pick<Prompt, 'arguments'>): Result<Record<string, string>> {
  const declared = prompt.arguments ?? [];
  const input = text.trim();
  if (declared.length === 0) {
    return input === '' ? { success: true, value: {} } : { success: false, error: 'This prompt takes no arguments.' };
  }
  const only = declared.length === 1 ? declared[0] : undefined;
  if (only && input !== '' && !new RegExp(`^${escapeRegExp(only.name)}=`, 'i').test(input)) {
    return checkRequired({ [only.name]: unquote(input) }, declared);
  }
  const tokens = tokenize(input);
  if (!tokens.success) return tokens;
  const values: Record<string, string> = {};
  const byName = new Map(declared.map((argument) => [argument.name.toLowerCase(), argument.name]));
  const positional: string[] = [];
  for (const token of tokens.value) {
    if (token.name === undefined) {
      positional.push(token.value);
      continue;
    }
    const name = byName.get(token.name.toLowerCase());
    if (name === undefined) return { success: false, error: `Unknown argument "${token.name}". This prompt takes: ${declared.map((argument) => argument.name).join(', ')}.` };
    if (Object.hasOwn(values, name)) return { success: false, error: `"${name}" is given twice.` };
    values[name] = token.value;
  }
  const open = declared.filter((argument) => !Object.hasOwn(values, argument.name));
  if (positional.length > open.length) {
    return { success: false, error: `Too many values: ${positional.length} given for ${open.length} open argument${open.length === 1 ? '' : 's'}.` };
  }
  positional.forEach((value, index) => {
    const argument = open[index];
    if (argument) values[argument.name] = value;
  });
  return checkRequired(values, declared);
}

function checkRequired(values: Record<string, string>, declared: NonNullable<Prompt['arguments']>): Result<Record<string, string>> {
  const missing = declared.filter((argument) => argument.required && (values[argument.name] ?? '').trim() === '').map((argument) => argument.name);
  if (missing.length > 0) return { success: false, error: `Missing ${missing.join(', ')}.` };
  return { success: true, value: values };
}

const OPENING = '"\u201c\u201e';
const CLOSING: Record<string, string> = { '"': '"', '\u201c': '\u201d', '\u201e': '\u201c' };

/**
 * Words, `name=value` pairs and double-quoted values. Written here rather than with a shell-words library on
 * purpose: those treat apostrophes (what's, l'été), `|`, `;`, `#`, `*` and `$` as syntax, and chat text is full
 * of them. Only double quotes group, and a quote inside a word is kept as typed.
 */
function tokenize(text: string): Result<Array<{ name?: string; value: string }>> {
  const tokens: Array<{ name?: string; value: string }> = [];
  let index = 0;
  while (index < text.length) {
    while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
    if (index >= text.length) break;
    let name: string | undefined;
    const pair = /^([A-Za-z_][\w.-]*)=/.exec(text.slice(index));
    if (pair?.[1] !== undefined) {
      name = pair[1];
      index += pair[0].length;
    }
    const opening = text[index] ?? '';
    if (OPENING.includes(opening) && opening !== '') {
      const closing = CLOSING[opening] ?? '"';
      const end = findClosing(text, index + 1, closing);
      if (end < 0) return { success: false, error: `A quote opened at "${text.slice(Math.max(0, index - 10), index + 10)}" is not closed.` };
      tokens.push({ ...(name !== undefined ? { name } : {}), value: text.slice(index + 1, end) });
      index = end + 1;
      continue;
    }
    let end = index;
    while (end < text.length && !/\s/.test(text[end] ?? '')) end += 1;
    tokens.push({ ...(name !== undefined ? { name } : {}), value: text.slice(index, end) });
    index = end;
  }
  return { success: true, value: tokens };
}

function findClosing(text: string, from: number, closing: string): number {
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    // A curly opening quote may be closed by a straight one (keyboards mix them).
    if (char === closing || char === '"' || char === '\u201d') return index;
  }
  return -1;
}

function unquote(text: string): string {
  const first = text[0] ?? '';
  const last = text.at(-1) ?? '';
  if (text.length >= 2 && OPENING.includes(first) && first !== '' && (last === CLOSING[first] || last === '"' || last === '\u201d')) return text.slice(1, -1);
  return text;
}

/**
 * A prompt's messages as the question of a turn. The person chose the prompt, so its text is the question — but
 * the server wrote it, so the turn starts tainted by it (`externalSources`). Embedded resources are data and are
 * wrapped as outside content; images go along as images; an exchange with assistant messages keeps its roles.
 */
export function promptTurn(server: string, name: string, result: Pick<GetPromptResult, 'messages'>): ChatCommandTurn {
  const source = `MCP server ${server} (prompt ${name})`;
  const images: Array<{ mimeType: string; data: Buffer }> = [];
  const labelled = result.messages.some((message) => message.role !== 'user');
  const parts = result.messages.map((message) => {
    const content = message.content;
    let text: string;
    if (content.type === 'text') text = content.text;
    else if (content.type === 'image') {
      images.push({ mimeType: content.mimeType, data: Buffer.from(content.data, 'base64') });
      text = `[image ${images.length} from the prompt]`;
    } else if (content.type === 'resource') {
      const resource = content.resource;
      text = 'text' in resource && typeof resource.text === 'string'
        ? wrapExternal(`MCP server ${server} (resource ${resource.uri})`, resource.text)
        : `[binary resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}: not shown; read it with mcp_resources if needed]`;
    } else if (content.type === 'resource_link') text = `[resource ${content.uri}${content.name ? ` (${content.name})` : ''}]`;
    else text = `[${content.type} content not shown]`;
    return labelled ? `${message.role === 'user' ? 'User' : 'Assistant'}: ${text}` : text;
  });
  const text = labelled
    ? `The prompt "${name}" of the MCP server ${server} sets up this exchange; continue it as the assistant.\n\n${parts.join('\n\n')}`
    : parts.join('\n\n');
  return { turn: { text: text.trim() === '' ? `(the prompt "${name}" of ${server} is empty)` : text, externalSources: [source], ...(images.length > 0 ? { images } : {}) } };
}

export function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  return points.length > limit ? `${points.slice(0, limit - 1).join('')}…` : flat;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
