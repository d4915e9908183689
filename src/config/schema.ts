import { z } from 'zod/v3';
import { parseCommandLine } from '../lib/command-line.js';
import { duration } from './duration.js';
import { signalSchema } from './signal-schema.js';
import { slackSchema } from './slack-schema.js';
import { matrixSchema } from './matrix-schema.js';
import { peopleSchema, permissionGrant } from './people-schema.js';
import { intentsSchema, triggersSchema } from './triggers-schema.js';
import { toolsSchema } from './tools-schema.js';
import { ALL, where, written, type Has } from './written.js';
import { isValidTimeZone, systemTimeZone } from './timezone.js';

/**
 * The configuration contract. Key names are relied on by operators and other parts: extend, never rename.
 * Every key is documented in config.example.yaml. Objects are strict so a misspelt key is reported, not ignored.
 * Every part is a function, so a load or reload builds the schema, validates and lets it go: zod v3 binds ~23 methods
 * to each instance, and as module constants the ~760 instances held ~840 KiB for the daemon's life.
 */

const secret = () => z.string().default('');
const userId = () => z.union([z.string(), z.number()]).transform(String);

const telegramSchema = () => z.strictObject({
  token: secret(),
  api_root: z.string().url().default('https://api.telegram.org'),
  allowed_users: z.array(userId()).default([]),
  /** Answer in groups only when mentioned or replied to (always true today; kept for clarity). */
  group_mention_only: z.boolean().default(true),
});

const discordSchema = () => z.strictObject({
  token: secret(),
  api_url: z.string().url().default('https://discord.com/api'),
  allowed_users: z.array(userId()).default([]),
});

const llmSchema = () => z.strictObject({
  base_url: z.string().url().default('https://api.openai.com/v1'),
  api_key: secret(),
  model: z.string().min(1).default('gpt-4o-mini'),
  fallback_models: z.array(z.string().min(1)).default([]),
  max_loops: z.number().int().min(1).max(100).default(10),
  timeout_s: z.number().positive().default(60),
  max_retries: z.number().int().min(0).max(10).default(3),
  max_retry_delay_s: z.number().positive().default(30),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  vision: z.boolean().default(false),
  daily_token_budget: z.number().int().min(0).default(0),
  prices: z
    .record(z.string(), z.strictObject({ prompt_per_mtok: z.number().min(0), completion_per_mtok: z.number().min(0) }))
    .default({}),
});

const agentSchema = () => z.strictObject({
  persona: z.string().optional(),
  history_tokens: z.number().int().min(256).default(8000),
  history_messages: z.number().int().min(2).max(2000).default(100),
  max_concurrent_turns: z.number().int().min(1).max(256).default(4),
  turn_timeout_s: z.number().positive().default(300),
  name: z.string().default('Familiar'),
});

/** An OpenAI-compatible `/embeddings` endpoint (hosted, or a local server that speaks it). */
const embeddingEndpoint = () => z.strictObject({
  base_url: z.string().url(),
  api_key: secret(),
  model: z.string().min(1),
});

const memorySchema = () => z.strictObject({
  prompt_chars: z.number().int().min(0).default(12000),
  /** Search by meaning too: an endpoint, `local` (the offline engine, an optional package), or `off` (words only). */
  embeddings: z.union([z.enum(['off', 'local']), embeddingEndpoint()]).default('off'),
  /** Tidying memory by the model: `propose` sends the diff to the person with Apply/Discard; `apply` applies it (undoable). */
  consolidate: z.enum(['off', 'propose', 'apply']).default('propose'),
  /** A consolidation is considered after this many new memory writes since the last one (volume, not the clock). */
  consolidate_after: z.number().int().min(1).default(40),
  /** The most tokens (estimated) of memory one consolidation reads and writes. */
  consolidate_tokens: z.number().int().min(500).default(6000),
});

/** A local engine's command: a list of words, or one line split like a shell would (but never run by one). */
const engineCommand = () => z
  .union([z.string(), z.array(z.string()).min(1)])
  .superRefine((value, context) => {
    const parsed = parseCommandLine(value);
    if (!parsed.success) context.addIssue({ code: 'custom', message: parsed.error });
  });

/** One engine: an OpenAI-compatible endpoint (`base_url`, default llm.base_url) or a local `command`, not both. */
const oneEngine = (value: { command?: unknown; base_url?: string | undefined }, context: z.RefinementCtx): void => {
  if (value.command !== undefined && value.base_url !== undefined) {
    context.addIssue({ code: 'custom', path: ['command'], message: 'give either command (a local engine) or base_url (an endpoint), not both' });
  }
};

const sttSchema = () => z
  .strictObject({
    /** Default: llm.base_url (and then llm.api_key, which never goes to another host). */
    base_url: z.string().url().optional(),
    api_key: secret(),
    model: z.string().min(1).default('whisper-1'),
    /** ISO-639-1 hint (`en`, `fr`); absent = the engine detects it. */
    language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, 'an ISO-639-1 code such as en or fr').optional(),
    /** Instead of an endpoint: a local recogniser, given a 16 kHz mono WAV file (`{input}`, else the last argument), printing the text. */
    command: engineCommand().optional(),
    /** How a piece is uploaded to the endpoint; wav is read by every server (whisper.cpp's only reads WAV). */
    format: z.enum(['wav', 'flac', 'mp3', 'ogg']).default('wav'),
    /** Audio is cut into pieces at most this long (at a quiet moment near the limit), each transcribed on its own. */
    max_piece_s: z.number().int().min(5).max(3600).default(600),
    /** ... and at most this large as uploaded (OpenAI accepts 25 MB). */
    max_upload_mb: z.number().positive().max(1024).default(24),
    timeout_s: z.number().positive().default(120),
    max_retries: z.number().int().min(0).max(10).default(2),
  })
  .superRefine(oneEngine);

const ttsSchema = () => z
  .strictObject({
    base_url: z.string().url().optional(),
    api_key: secret(),
    model: z.string().min(1).default('tts-1'),
    voice: z.string().min(1).default('alloy'),
    /** What the endpoint is asked to return (it is converted for each platform anyway). */
    format: z.enum(['mp3', 'wav', 'opus', 'flac', 'aac']).default('mp3'),
    /** Instead of an endpoint: a local synthesiser reading the text on stdin and writing audio to `{output}` (else to stdout). */
    command: engineCommand().optional(),
    /** The longest text spoken (OpenAI's limit is 4096); a longer answer is spoken up to there, then "the rest is in the text". */
    max_chars: z.number().int().min(50).max(100_000).default(4000),
    timeout_s: z.number().positive().default(60),
    max_retries: z.number().int().min(0).max(10).default(2),
    /** A chat's mode until someone says /voice on|off|auto there: off, on (every answer) or auto (answers to voice notes). */
    chat_default: z.enum(['off', 'on', 'auto']).default('off'),
  })
  .superRefine(oneEngine);

const voiceSchema = (has: Has) => z.strictObject({
  stt: where(has, 'voice.stt', sttSchema).optional(),
  tts: where(has, 'voice.tts', ttsSchema).optional(),
  /** ffmpeg decodes what arrives and encodes what is sent (OGG/Opus voice notes, MP3). */
  ffmpeg: z.string().min(1).default('ffmpeg'),
  /** Audio minutes a day, heard and spoken together, in `timezone`; 0 = no cap. */
  daily_minutes: z.number().min(0).default(60),
  /** The longest audio transcribed. */
  max_duration_s: z.number().int().min(1).default(1800),
  /** The largest audio file transcribed. */
  max_file_mb: z.number().positive().default(20),
});

const jobSchema = () => z.strictObject({
  id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'use letters, digits, - and _'),
  cron: z.string().optional(),
  run_at: z.string().optional(),
  when: z.string().optional(),
  prompt: z.string().min(1),
  catch_up: z.enum(['once', 'skip']).default('once'),
  deliver_to: z.string().optional(),
  enabled: z.boolean().default(true),
  approve: z.array(z.string()).default([]),
  /** Runs once per inbound trigger of this source (docs/triggers.md), beside cron, run_at and when. */
  trigger: z
    .strictObject({
      source: z.string().regex(/^(mail|webhook:[a-zA-Z0-9_-]{1,64})$/, 'write `mail` or `webhook:<name>` (a route of triggers.webhooks)'),
      match: z.string().min(1).optional(),
    })
    .optional(),
});

const schedulerSchema = (has: Has) => z.strictObject({
  default_chat: z.string().optional(),
  catch_up_window: duration().default(86400),
  unattended_tools: z.array(z.string()).optional(),
  run_timeout_s: z.number().positive().default(600),
  jobs: z.array(where(has, 'scheduler.jobs', jobSchema)).default([]),
});

/** "08:00-22:00" (may wrap past midnight, "22:00-07:00"), in `timezone`. */
const HOURS_RANGE = /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/;

/** The heartbeat (docs/heartbeat.md): off while the section is absent. Probes first; the model only on a change. */
const heartbeatSchema = () => z.strictObject({
  every: duration().default(1800).refine((seconds) => seconds >= 60, 'beat at most once a minute (e.g. "30m")'),
  active_hours: z.string().regex(HOURS_RANGE, 'write it as "08:00-22:00"').optional(),
  quiet_hours: z.string().regex(HOURS_RANGE, 'write it as "22:00-07:00"').optional(),
  to: z.string().optional(),
  model: z.string().min(1).optional(),
  beat_tokens: z.number().int().min(0).default(8000),
  day_tokens: z.number().int().min(0).default(40000),
  pause_after_days: z.number().min(0).default(3),
});

const approvalSchema = () => z.strictObject({
  timeout_s: z.number().positive().default(300),
  auto_approve: z.array(z.string()).default([]),
});

/**
 * The leak budget (docs/SECURITY.md): in a turn holding outside content, each fetch or search that goes ahead unasked
 * because its address or words came from the person or from third parties' words is charged log2(N+1) bits, N being
 * how many it could have chosen among. Past a budget a chat asks and an unattended run is refused. 0 = nothing goes
 * unasked.
 */
const leakBudgetSchema = () => z.strictObject({
  /** One chat turn (the person's message and everything the model does for it). */
  turn_bits: z.number().min(0).max(4096).default(32),
  /** One unattended run (a job or skill run). */
  run_bits: z.number().min(0).max(4096).default(16),
  /** One job or skill, all its runs in any 24 hours. */
  job_day_bits: z.number().min(0).max(65536).default(32),
  /** Everything together (chats, `familiar ask`, jobs, skills) in any 24 hours: a 128-bit key cannot leave in a day. */
  day_bits: z.number().min(0).max(65536).default(64),
});

const trustSchema = () => z.strictObject({
  leak_budget: leakBudgetSchema().default({}),
});

const agentProfileSchema = () => z.strictObject({
  persona: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(z.string()).default(['*']),
  permissions: z.array(permissionGrant()).optional(),
});

const routeSchema = () => z.strictObject({
  channel: z.enum(['telegram', 'discord', 'signal', 'slack', 'matrix', 'cli', 'console', 'scheduler']),
  chat_id: userId().optional(),
  agent: z.string(),
});

const logSchema = () => z.strictObject({
  level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** The daemon's log file (JSON lines): empty = `<data_dir>/logs/familiar.log`, `off` = none. */
  file: z.string().default(''),
  /** The file is rotated when it reaches this size; `file_count` rotated files are kept. */
  file_max_mb: z.number().positive().default(10),
  file_count: z.number().int().min(1).max(100).default(5),
});

const httpServerSchema = () => z.strictObject({
  listen: z.string().optional(),
  token: secret(),
  /** The web console on the same address (only when `listen` is set): login with `familiar console`. */
  console: z.boolean().default(true),
  /**
   * Host names the console answers to besides loopback and the listen address (a LAN name, a reverse proxy's):
   * any other Host header is refused, so a web page cannot reach the console through DNS rebinding.
   */
  hosts: z.array(z.string().min(1).regex(/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:.]+\]$/, 'a host name without port or scheme, e.g. familiar.home.lan')).default([]),
  /** The console's address as the browser reaches it when that is not the listen address (https behind a proxy). */
  public_url: z.string().url().optional(),
});

/**
 * The whole schema, built on each call (not kept: see above); `configSchema.parse(value)` still works, as before. Given
 * `has`, only the parts the config has (validateConfig: `written(raw)`).
 */
const buildConfigSchema = (has: Has = ALL) => z.strictObject({
  timezone: z
    .string()
    .default(() => systemTimeZone())
    .refine(isValidTimeZone, { message: 'not an IANA time zone (e.g. Europe/Paris)' }),
  data_dir: z.string().default('./data'),
  /** Empty = the default, resolved by config/folders.ts: `<data_dir>/memory` (an existing `./memory` beside the config is kept). */
  memory_dir: z.string().default(''),
  /** Empty = the default, resolved by config/folders.ts: `<data_dir>/skills`. */
  skills_dir: z.string().default(''),
  /** Your own tools (modules and script tools), run with the daemon's rights. Empty = `<data_dir>/tools`. */
  tools_dir: z.string().default(''),
  log: logSchema().default({}),
  llm: llmSchema().default({}),
  agent: agentSchema().default({}),
  memory: memorySchema().default({}),
  channels: z
    .strictObject({
      telegram: where(has, 'channels.telegram', telegramSchema).optional(), discord: where(has, 'channels.discord', discordSchema).optional(),
      signal: where(has, 'channels.signal', signalSchema).optional(), slack: where(has, 'channels.slack', slackSchema).optional(),
      matrix: where(has, 'channels.matrix', matrixSchema).optional(),
    })
    .default({}),
  tools: toolsSchema(has).default({}),
  scheduler: schedulerSchema(has).default({}),
  approval: approvalSchema().default({}),
  trust: trustSchema().default({}),
  agents: z.record(z.string(), where(has, 'agents', agentProfileSchema)).default({}),
  routes: z.array(where(has, 'routes', routeSchema)).default([]),
  http: httpServerSchema().default({}),
  voice: voiceSchema(has).default({}),
  heartbeat: where(has, 'heartbeat', heartbeatSchema).optional(),
  triggers: triggersSchema().default({}),
  intents: intentsSchema().default({}),
  /** A household (docs/household.md): each person their own memory, jobs, approvals and budget. Absent: one person. */
  people: where(has, 'people', peopleSchema).optional(),
});

export const configSchema = Object.assign(() => buildConfigSchema(), { parse: (value: unknown) => buildConfigSchema().parse(value), safeParse: (value: unknown) => buildConfigSchema().safeParse(value) });

/** The schema of what `raw` (a parsed config) has: validates it as the whole schema would, built in about half the time. */
export function configSchemaFor(raw: unknown): ReturnType<typeof buildConfigSchema> {
  return buildConfigSchema(written(raw));
}
export type Config = z.output<ReturnType<typeof buildConfigSchema>>;
export type LlmConfig = Config['llm'];
export type ToolsConfig = Config['tools'];
export type VoiceConfig = Config['voice'];

