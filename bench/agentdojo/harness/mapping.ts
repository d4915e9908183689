// AgentDojo's functions mapped onto Familiar's real tools. A ground-truth call becomes one or more Familiar calls;
// where the next call depends on what the previous one returned (the uids a mail search found, the files a search
// matched), the plan continues from that output, as a model reading the result would.
import { siteKey, type Area } from './services.js';
import type { AgentCall } from './suite.js';

export interface FamiliarCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One item of a plan: a call to make, a continuation on the previous call's output, or a call with no counterpart. */
export type PlanItem =
  | { kind: 'call'; call: FamiliarCall; from: string }
  | { kind: 'then'; next: (output: string) => PlanItem[]; from: string; tools: string[] }
  | { kind: 'skip'; from: string; reason: string };

/** What the mapping needs to know about the seeded world (filled by world.ts). */
export interface View {
  urls: Readonly<Record<Area, string>>;
  /** Drive file ids to workspace file names. */
  driveNames: ReadonlyMap<string, string>;
  /** The seeded content of each workspace file, by name. */
  fileContents: ReadonlyMap<string, string>;
  /** Values for `$name` placeholders in ground-truth arguments (bodies, file lists, the external channel). */
  placeholders: ReadonlyMap<string, unknown>;
}

const WRITES = new Set([
  'send_money', 'schedule_transaction', 'update_scheduled_transaction', 'update_password', 'update_user_info',
  'send_direct_message', 'send_channel_message', 'invite_user_to_slack', 'add_user_to_channel', 'remove_user_from_slack',
  'reserve_hotel', 'reserve_restaurant', 'reserve_car_rental',
]);
const BANK = new Set(['send_money', 'schedule_transaction', 'update_scheduled_transaction', 'update_password', 'update_user_info', 'get_balance', 'get_iban', 'get_most_recent_transactions', 'get_scheduled_transactions', 'get_user_info']);
const SLACK = new Set(['get_channels', 'read_channel_messages', 'read_inbox', 'get_users_in_channel', 'send_direct_message', 'send_channel_message', 'invite_user_to_slack', 'add_user_to_channel', 'remove_user_from_slack']);
const TRAVEL = new Set([
  'get_all_hotels_in_city', 'get_hotels_prices', 'get_hotels_address', 'get_rating_reviews_for_hotels', 'get_all_restaurants_in_city',
  'get_restaurants_address', 'get_rating_reviews_for_restaurants', 'get_cuisine_type_for_restaurants', 'get_dietary_restrictions_for_all_restaurants',
  'get_contact_information_for_restaurants', 'get_price_for_restaurants', 'check_restaurant_opening_hours', 'get_all_car_rental_companies_in_city',
  'get_car_types_available', 'get_rating_reviews_for_car_rental', 'get_car_rental_address', 'get_car_fuel_options', 'get_car_price_per_day',
  'get_flight_information', 'reserve_hotel', 'reserve_restaurant', 'reserve_car_rental',
]);
const CALENDAR = new Set(['get_current_day', 'get_day_calendar_events', 'search_calendar_events', 'create_calendar_event', 'reschedule_calendar_event', 'add_calendar_event_participants', 'cancel_calendar_event']);

const MAX_ATTACHMENTS = 20;

const call = (from: string, name: string, args: Record<string, unknown>): PlanItem => ({ kind: 'call', from, call: { name, arguments: args } });
const then = (from: string, tools: string[], next: (output: string) => PlanItem[]): PlanItem => ({ kind: 'then', from, tools, next });

/** The mail uids a list or search answer shows. */
export function uidsIn(output: string): number[] {
  return [...new Set([...output.matchAll(/\buid (\d+)\b/g)].map((match) => Number(match[1])))];
}

/** Workspace paths a glob or grep answer shows (one per line, grep's "path:line: text"). */
function pathsIn(output: string, grep: boolean): string[] {
  if (output.startsWith('ERROR:')) return [];
  const lines = output.split('\n').filter((line) => line !== '' && !line.startsWith('(') && !/^No (file|line) match/.test(line));
  return [...new Set(lines.map((line) => (grep ? line.replace(/:\d+: .*$/s, '') : line.trim())))];
}

/** A case-insensitive JavaScript pattern for a literal text (the grep tool has no flags). */
function anyCase(text: string): string {
  return [...text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')].map((char) => (/[a-z]/i.test(char) ? `[${char.toLowerCase()}${char.toUpperCase()}]` : char)).join('');
}

/** `{{prompt:Label}}`: the value the person's profile (in the system prompt) gives for that label. */
export function fillFromPrompt(text: string, systemPrompt: string): string {
  return text.replace(/\{\{prompt:([^}]+)\}\}/g, (_, label: string) => {
    const line = new RegExp(`${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(.+)`, 'i').exec(systemPrompt);
    return line?.[1]?.trim() ?? `(no ${label} in my prompt)`;
  });
}

/** The ground-truth arguments with `$placeholders` and `{{prompt:…}}` filled in. */
function resolve(value: unknown, view: View, systemPrompt: string): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('$') && view.placeholders.has(value.slice(1))) return view.placeholders.get(value.slice(1));
    return fillFromPrompt(value, systemPrompt);
  }
  if (Array.isArray(value)) return value.flatMap((item) => {
    const resolved = resolve(item, view, systemPrompt);
    return typeof item === 'string' && item.startsWith('$') && Array.isArray(resolved) ? (resolved as unknown[]) : [resolved];
  });
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, view, systemPrompt)]));
  return value;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);

/** A drive file by id (or already a name), as its workspace file name. */
function fileName(view: View, id: unknown): string {
  const key = String(id);
  return view.driveNames.get(key) ?? key;
}

function readEach(from: string, folder?: string, markSeen?: boolean): PlanItem {
  return then(from, ['email'], (output) => uidsIn(output).map((uid) => call(from, 'email', { action: 'read', uid, ...(folder ? { folder } : {}), ...(markSeen ? { mark_seen: true } : {}) })));
}

/** The Familiar calls for one AgentDojo call. */
export function mapCall(agent: AgentCall, view: View, systemPrompt: string): PlanItem[] {
  const from = agent.name;
  const args = resolve(agent.args, view, systemPrompt) as Record<string, unknown>;
  if (CALENDAR.has(from)) return [{ kind: 'skip', from, reason: 'Familiar has no calendar tool yet' }];
  if (BANK.has(from) || SLACK.has(from) || TRAVEL.has(from)) {
    // The person's services are HTTP APIs behind presets (their credentials); reads are GETs, changes POSTs.
    const preset = BANK.has(from) ? 'bank' : SLACK.has(from) ? 'slack' : 'travel';
    if (WRITES.has(from)) return [call(from, 'http', { preset, method: 'POST', url: `/${from}`, body: args })];
    const query = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, typeof value === 'object' ? JSON.stringify(value) : (value as string | number | boolean)]));
    return [call(from, 'http', { preset, url: `/${from}`, ...(Object.keys(query).length > 0 ? { query } : {}) })];
  }
  switch (from) {
    case 'search_emails': {
      const query = String(args.query ?? '');
      const search = { action: 'search', ...(query !== '' ? { text: query } : {}), ...(args.sender ? { from: args.sender } : {}) };
      return [call(from, 'email', search), readEach(from)];
    }
    case 'get_unread_emails':
      return [call(from, 'email', { action: 'list', unread_only: true, limit: 50 }), readEach(from, undefined, true)];
    case 'get_received_emails':
      return [call(from, 'email', { action: 'list', limit: 50 }), readEach(from)];
    case 'get_sent_emails':
      return [call(from, 'email', { action: 'list', folder: 'Sent', limit: 50 }), readEach(from, 'Sent')];
    case 'get_draft_emails':
      return [call(from, 'email', { action: 'list', folder: 'Drafts', limit: 50 }), readEach(from, 'Drafts')];
    case 'send_email': {
      const listed: unknown[] = Array.isArray(args.attachments) ? args.attachments : args.attachments === undefined ? [] : [args.attachments];
      // AgentDojo attaches files by id ({type: file, file_id}); the workspace knows them by name.
      const attachments = listed.map((item) => fileName(view, typeof item === 'object' && item !== null ? (item as { file_id?: unknown }).file_id : item));
      // The email tool takes at most 20 attachments; more go in further messages, as a model told so would send them.
      const batches = attachments.length === 0 ? [[]] : Array.from({ length: Math.ceil(attachments.length / MAX_ATTACHMENTS) }, (_, index) => attachments.slice(index * MAX_ATTACHMENTS, (index + 1) * MAX_ATTACHMENTS));
      return batches.map((batch, index) => call(from, 'email', {
        action: 'send', to: asList(args.recipients), subject: `${String(args.subject ?? '')}${batches.length > 1 ? ` (${index + 1}/${batches.length})` : ''}`, body: String(args.body ?? ''),
        ...(asList(args.cc).length > 0 ? { cc: asList(args.cc) } : {}), ...(asList(args.bcc).length > 0 ? { bcc: asList(args.bcc) } : {}),
        ...(batch.length > 0 ? { attachments: batch } : {}),
      }));
    }
    case 'delete_email':
      return [{ kind: 'skip', from, reason: 'the email tool cannot delete mail' }];
    case 'search_contacts_by_name':
    case 'search_contacts_by_email':
      return [{ kind: 'skip', from, reason: 'Familiar has no contact list' }];
    case 'list_files':
      return [call(from, 'listdir', {}), then(from, ['read'], (output) => [...view.fileContents.keys(), 'drive-index.md'].filter((name) => output.includes(name)).map((name) => call(from, 'read', { path: name })))];
    case 'search_files_by_filename':
      return [call(from, 'glob', { pattern: `*${String(args.filename)}*` }), then(from, ['read'], (output) => pathsIn(output, false).map((name) => call(from, 'read', { path: name })))];
    case 'search_files':
      return [call(from, 'grep', { pattern: anyCase(String(args.query)) }), then(from, ['read'], (output) => pathsIn(output, true).map((name) => call(from, 'read', { path: name })))];
    case 'get_file_by_id':
      return [call(from, 'read', { path: fileName(view, args.file_id) })];
    case 'create_file':
      return [call(from, 'write', { path: String(args.filename), content: String(args.content) })];
    case 'append_to_file': {
      // Appending with the edit tool: the end of the file as read, replaced by itself and the new text (a file
      // deleted meanwhile stays deleted, as AgentDojo's append fails then).
      const name = fileName(view, args.file_id);
      const tail = (view.fileContents.get(name) ?? '').slice(-300);
      if (tail === '') return [call(from, 'write', { path: name, content: String(args.content) })];
      return [call(from, 'edit', { path: name, old: tail, new: `${tail}${String(args.content)}` })];
    }
    case 'delete_file':
      return asList(args.file_id).map((id) => call(from, 'sandbox_exec', { command: `rm -f -- '${fileName(view, id).replace(/'/g, `'\\''`)}'` }));
    case 'share_file': {
      // Sharing a file with someone is, with Familiar's tools, sending it to them.
      const name = fileName(view, args.file_id);
      return [call(from, 'email', { action: 'send', to: [String(args.email)], subject: `Shared with you: ${name}`, body: `${name} (${args.permission === 'rw' ? 'you may edit it' : 'read only'})`, attachments: [name] })];
    }
    case 'read_file':
      return [call(from, 'read', { path: String(args.file_path) })];
    case 'get_webpage':
      return [call(from, 'http', { url: `${view.urls.web}/${siteKey(String(args.url))}` })];
    case 'post_webpage':
      return [call(from, 'http', { method: 'POST', url: `${view.urls.web}/${siteKey(String(args.url))}`, body: String(args.content) })];
    case 'get_user_information':
      return [call(from, 'memory_read', { path: 'profile.md' })];
    default:
      return [{ kind: 'skip', from, reason: `no mapping for ${from}` }];
  }
}

/** The tools a plan uses (a job's approve list names them, as the person would for their own job). */
export function toolsOf(items: readonly PlanItem[]): string[] {
  return [...new Set(items.flatMap((item) => (item.kind === 'call' ? [item.call.name] : item.kind === 'then' ? item.tools : [])))];
}
