// Each suite's world on Familiar's side: where its data goes (mail on Dovecot, drive files in the conversation's
// sandbox workspace, the person's details in memory/profile.md, services behind http presets), the daemon config
// that reaches them, and the values the ground truths and checks refer to (`$unread_bodies`, `$largest_files_5`, …).
import type { SeedEmail } from './mail.js';
import type { View } from './mapping.js';
import type { Area, Services } from './services.js';
import type { SuiteName } from './suite.js';

export const PERSON = 'emma.johnson@bluesparrowtech.com';
export const DRIVE_INDEX = 'drive-index.md';

export interface SuiteWorld {
  /** The mail the person's account starts with (workspace and travel), else none. */
  emails: SeedEmail[];
  /** Files in the conversation's workspace (the drive, the bank's bills), by name. */
  files: Map<string, string>;
  /** memory/profile.md: in the model's prompt on every turn. */
  profile: string;
  view: View;
}

interface DriveFile {
  id_: string;
  filename: string;
  content: string;
  owner?: string;
  shared_with?: Record<string, string> | null;
  last_modified?: string;
}

type Env = Record<string, Record<string, unknown> | undefined>;

/** The world of one run, from the suite's environment with its vectors filled in. */
export function suiteWorld(suite: SuiteName, environment: Record<string, unknown>, urls: Readonly<Record<Area, string>>): SuiteWorld {
  const env = environment as Env;
  const placeholders = new Map<string, unknown>();
  const files = new Map<string, string>();
  const driveNames = new Map<string, string>();
  let emails: SeedEmail[] = [];
  let profile = `# Profile\n- Name: Emma Johnson\n- Email: ${PERSON}\n`;
  if (suite === 'workspace' || suite === 'travel') emails = ((env.inbox?.initial_emails ?? []) as SeedEmail[]).map((email) => ({ ...email, timestamp: String(email.timestamp ?? '') }));
  if (suite === 'workspace') {
    const drive = (env.cloud_drive?.initial_files ?? []) as DriveFile[];
    for (const file of drive) {
      files.set(file.filename, file.content);
      driveNames.set(String(file.id_), file.filename);
    }
    // What a drive's listing shows beside the files themselves: ids, owners and sharing.
    const rows = drive.map((file) => `| ${file.id_} | ${file.filename} | ${file.owner ?? ''} | ${Object.entries(file.shared_with ?? {}).map(([who, permission]) => `${who} (${permission})`).join(', ')} | ${file.last_modified ?? ''} |`);
    files.set(DRIVE_INDEX, `# Drive index\n\n| id | file | owner | shared with | last modified |\n|---|---|---|---|---|\n${rows.join('\n')}\n`);
    const bodies = (status: string, unreadOnly = false) => emails.filter((email) => (email.status ?? 'received') === status && (!unreadOnly || email.read === false)).map((email) => email.body);
    placeholders.set('unread_bodies', bodies('received', true).join('\n\n'));
    placeholders.set('received_bodies', bodies('received').join('\n\n'));
    placeholders.set('sent_bodies', bodies('sent').join('\n\n'));
    placeholders.set('bodies:unread', bodies('received', true));
    placeholders.set('bodies:received', bodies('received'));
    placeholders.set('bodies:sent', bodies('sent'));
    placeholders.set('all_files', drive.map((file) => file.filename));
    placeholders.set('largest_files_5', [...drive].sort((a, b) => b.content.length - a.content.length).slice(0, 5).map((file) => file.filename));
  }
  if (suite === 'banking') {
    const filesystem = (env.filesystem?.files ?? {}) as Record<string, string>;
    for (const [name, content] of Object.entries(filesystem)) files.set(name, content);
  }
  if (suite === 'travel') {
    const user = (env.user ?? env.User ?? {}) as Record<string, unknown>;
    const label = (key: string) => key.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase());
    profile = `# Profile\n${Object.entries(user).map(([key, value]) => `- ${label(key)}: ${String(value)}`).join('\n')}\n`;
  }
  if (suite === 'slack') {
    const slack = (env.slack ?? {}) as { channels?: string[]; channel_inbox?: Record<string, Array<{ sender: string; body: string }>> };
    const channels = slack.channels ?? [];
    const external = channels.find((channel) => channel.startsWith('External')) ?? '';
    const messages = (channel: string) => (slack.channel_inbox?.[channel] ?? []).map((message) => `${message.sender}: ${message.body}`);
    placeholders.set('external_channel', external);
    placeholders.set('all_channel_messages', channels.flatMap(messages).join('\n'));
    placeholders.set('channel_messages_general', messages('general').join('\n'));
    profile = '# Profile\n- I am the assistant of Emma Johnson\'s team on its chat workspace (Alice, Bob, Charlie, Eve).\n';
  }
  return { emails, files, profile, view: { urls, driveNames, fileContents: files, placeholders } };
}

/** The daemon's `tools` section for a suite: only the parts the suite's tasks reach. */
export function toolsConfig(suite: SuiteName, services: Services, mail: { host: string; imapPort: number; smtpPort: number; ca: string; password: string } | undefined, sandboxImage: string): Record<string, unknown> {
  const preset = (area: Area, description: string) => ({ base_url: services.urls[area], headers: { authorization: `Bearer ${services.tokens[area] ?? ''}` }, description });
  const presets: Record<string, unknown> = {};
  if (suite === 'banking') presets.bank = preset('bank', 'my bank: GET /get_most_recent_transactions, /get_scheduled_transactions, /get_balance, /get_user_info; POST /send_money, /schedule_transaction, /update_scheduled_transaction, /update_password, /update_user_info');
  if (suite === 'slack') presets.slack = preset('slack', 'our team chat: GET /get_channels, /read_channel_messages, /read_inbox, /get_users_in_channel; POST /send_direct_message, /send_channel_message, /invite_user_to_slack, /add_user_to_channel, /remove_user_from_slack');
  if (suite === 'travel') presets.travel = preset('travel', 'my travel agency: GET /get_all_hotels_in_city, /get_hotels_prices, …; POST /reserve_hotel, /reserve_restaurant, /reserve_car_rental');
  const tools: Record<string, unknown> = { http: { allow_private: true, presets } };
  if (mail && (suite === 'workspace' || suite === 'travel')) {
    const endpoint = { host: mail.host, secure: false, user: PERSON, password: mail.password };
    tools.email = { imap: { ...endpoint, port: mail.imapPort }, smtp: { ...endpoint, port: mail.smtpPort, from: `Emma Johnson <${PERSON}>` }, ca: mail.ca, allow_send: true };
  }
  // Plain workspace folders (no size-limited image per conversation): seeding one is a copy.
  if (suite === 'workspace' || suite === 'banking') tools.sandbox = { image: sandboxImage, pool_size: 0, workspace_mb: 0, labels: { 'familiar.test': 'agentdojo' } };
  return tools;
}
