import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { configFilePath } from '../config/load.js';
import { writeAtomically } from '../init/files.js';
import { parseCommandArgs } from './args.js';
import { checkedChange, edited } from './config.js';
import type { Command, CommandContext } from './context.js';
import { optionsOf } from './spec.js';

const USAGE = `usage: familiar people list
       familiar people add NAME --role owner|member|child [--telegram ID] [--discord ID] [--timezone ZONE] [--daily-tokens N]
       familiar people link NAME (--telegram ID | --discord ID | --channel NAME --id ID)
       familiar people remove NAME
`;

const RELOADS = 'A running daemon picks this up by its config reload (no restart), except turning the household on or off, which needs a restart.\n';

/** `familiar people list|add|link|remove`: the household in config.yaml (`people:`), edited with its comments kept. */
export const peopleCommand: Command = async (context) => {
  let parsed;
  try {
    parsed = parseCommandArgs(context.args, optionsOf('people'));
  } catch (error) {
    context.io.stderr.write(`familiar people: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [action, name, ...extra] = parsed.positionals;
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (action === 'list' || action === undefined) return Promise.resolve(list(context));
  if (!name || extra.length > 0 || !['add', 'link', 'remove'].includes(action)) {
    context.io.stderr.write(USAGE);
    return 2;
  }
  const file = configFilePath({ configPath: context.options.config }).file;
  if (!existsSync(file)) {
    context.io.stderr.write(`familiar people: there is no ${file} to change; make it with: familiar init\n`);
    return 1;
  }
  const text = readFileSync(file, 'utf8');
  const document = parseDocument(text);
  const people = (document.toJS() as { people?: Record<string, { role?: string; ids?: Record<string, unknown> }> | null }).people ?? {};
  const person = Object.hasOwn(people, name) ? people[name] : undefined;
  let nextText: string;
  let said: string;
  if (action === 'add') {
    if (person) return refuse(context, `${name} is already in people: (familiar people link ${name} --telegram ID adds an id)`);
    const role = typeof values['role'] === 'string' ? values['role'] : 'member';
    if (Object.keys(people).length === 0 && role !== 'owner') return refuse(context, `there is no owner yet: add yourself first (familiar people add YOURNAME --role owner --telegram ID)`);
    const ids = idsFrom(values);
    const entry: Record<string, unknown> = { role, ids: role === 'owner' ? { ...ids, console: true } : ids };
    if (typeof values['timezone'] === 'string') entry['timezone'] = values['timezone'];
    if (typeof values['daily-tokens'] === 'string') entry['budget'] = { daily_tokens: Number(values['daily-tokens']) };
    nextText = edited(text, document, ['people', name], entry);
    said = `added ${name} (${role}) to people: in ${file}; their memory folder is memory_dir/people/${name}/\n`;
  } else if (action === 'link') {
    if (!person) return refuse(context, `${name} is not in people: (familiar people list)`);
    const ids = idsFrom(values);
    const channels = Object.keys(ids);
    if (channels.length === 0) return refuse(context, `say which id: --telegram ID, --discord ID, or --channel NAME --id ID`);
    nextText = text;
    for (const channel of channels) {
      const current = Array.isArray(person.ids?.[channel]) ? (person.ids[channel] as unknown[]).map(String) : [];
      const merged = [...new Set([...current, ...(ids[channel] ?? [])])];
      nextText = edited(nextText, parseDocument(nextText), ['people', name, 'ids', channel], merged);
    }
    said = `linked ${channels.map((channel) => `${channel} ${(ids[channel] ?? []).join(', ')}`).join(' and ')} to ${name} in ${file}\n`;
  } else {
    if (!person) return refuse(context, `${name} is not in people: (familiar people list)`);
    if (person.role === 'owner') return refuse(context, `${name} is the owner and stays (a household has exactly one); make someone else owner first`);
    document.deleteIn(['people', name]);
    nextText = document.toString();
    said = `removed ${name} from people: in ${file}. Their folder is kept: ${path.join(memoryDir(context), 'people', name)} (delete it yourself if you mean to); their messages now run as a guest.\n`;
  }
  const left = checkedChange(context, { file, nextText, what: `familiar people ${action} ${name}`, command: 'familiar people' });
  if (left === undefined) return 2;
  writeAtomically({ path: file, text: nextText, mode: 0o600, secret: false });
  context.io.stdout.write(said + RELOADS);
  for (const problem of left) context.io.stderr.write(`note: still to fix: ${problem}\n`);
  return 0;
};

function list(context: CommandContext): number {
  const { config } = context.loadConfig();
  const people = Object.entries(config.people ?? {});
  if (context.options.json) {
    context.io.stdout.write(`${JSON.stringify(Object.fromEntries(people), null, 2)}\n`);
    return 0;
  }
  if (people.length === 0) {
    context.io.stdout.write('No people: one person, memory at the folder\'s root. Start a household with: familiar people add YOURNAME --role owner --telegram ID\n');
    return 0;
  }
  for (const [name, person] of people) {
    const ids = Object.entries(person.ids).map(([channel, value]) => (value === true ? channel : `${channel} ${value.join(', ')}`)).join('; ');
    const budget = person.budget.daily_tokens !== undefined ? `, ${person.budget.daily_tokens} tokens a day` : '';
    context.io.stdout.write(`${name}  ${person.role}  ${ids || 'no ids'}${person.timezone ? `, ${person.timezone}` : ''}${budget}${person.tools ? `, tools: ${person.tools.join(' ')}` : ''}\n`);
  }
  return 0;
}

function idsFrom(values: Record<string, string | boolean | undefined>): Record<string, string[]> {
  const ids: Record<string, string[]> = {};
  if (typeof values['telegram'] === 'string') ids['telegram'] = [values['telegram']];
  if (typeof values['discord'] === 'string') ids['discord'] = [values['discord']];
  if (typeof values['channel'] === 'string' && typeof values['id'] === 'string') ids[values['channel']] = [...(ids[values['channel']] ?? []), values['id']];
  return ids;
}

function memoryDir(context: CommandContext): string {
  try {
    return context.loadConfig().config.memory_dir;
  } catch {
    return 'memory_dir';
  }
}

function refuse(context: CommandContext, reason: string): number {
  context.io.stderr.write(`familiar people: ${reason}\n`);
  return 2;
}
