import { z } from 'zod/v3';
import { duration } from './duration.js';
import { isValidTimeZone, systemTimeZone } from './timezone.js';

/**
 * The configuration contract. Key names are relied on by operators and other parts: extend, never rename.
 * Every key is documented in config.example.yaml. Objects are strict so a misspelt key is reported, not ignored.
 */

const secret = z.string().default('');
const userId = z.union([z.string(), z.number()]).transform(String);

const telegramSchema = z.strictObject({
  token: secret,
  api_root: z.string().url().default('https://api.telegram.org'),
  allowed_users: z.array(userId).default([]),
  /** Answer in groups only when mentioned or replied to (always true today; kept for clarity). */
  group_mention_only: z.boolean().default(true),
});

const discordSchema = z.strictObject({
  token: secret,
  api_url: z.string().url().default('https://discord.com/api'),
  allowed_users: z.array(userId).default([]),
});

const llmSchema = z.strictObject({
  base_url: z.string().url().default('https://api.openai.com/v1'),
  api_key: secret,
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

const agentSchema = z.strictObject({
  persona: z.string().optional(),
  history_tokens: z.number().int().min(256).default(8000),
  history_messages: z.number().int().min(2).max(2000).default(100),
  max_concurrent_turns: z.number().int().min(1).max(256).default(4),
  turn_timeout_s: z.number().positive().default(300),
  name: z.string().default('Familiar'),
});

const memorySchema = z.strictObject({
  prompt_chars: z.number().int().min(0).default(12000),
});

const httpPresetSchema = z.strictObject({
  base_url: z.string().url(),
  headers: z.record(z.string(), z.string()).default({}),
  description: z.string().optional(),
});

const mailEndpoint = z.strictObject({
  host: z.string().default(''),
  port: z.number().int().min(1).max(65535).optional(),
  secure: z.boolean().optional(),
  user: z.string().default(''),
  password: secret,
});

const mcpServerSchema = z.strictObject({
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().url().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  trust: z.enum(['low', 'high']).default('high'),
  timeout_s: z.number().positive().default(30),
});

const toolsSchema = z.strictObject({
  timeout_s: z.number().positive().default(30),
  timeouts: z.record(z.string(), z.number().positive()).default({}),
  output_chars: z.number().int().min(500).default(16000),
  web_search: z
    .strictObject({
      provider: z.enum(['tavily', 'exa', 'searxng']).default('tavily'),
      api_key: secret,
      base_url: z.string().url().optional(),
      max_results: z.number().int().min(1).max(20).default(5),
      timeout_s: z.number().positive().default(20),
    })
    .optional(),
  http: z
    .strictObject({
      presets: z.record(z.string(), httpPresetSchema).default({}),
      allow_hosts: z.array(z.string()).default([]),
      allow_private: z.boolean().default(false),
      timeout_s: z.number().positive().default(20),
      max_bytes: z.number().int().positive().default(2_000_000),
      max_redirects: z.number().int().min(0).max(20).default(5),
    })
    .default({}),
  email: z
    .strictObject({
      imap: mailEndpoint.default({}),
      smtp: mailEndpoint.extend({ from: z.string().default('') }).default({}),
      ca: z.string().optional(),
      ca_file: z.string().optional(),
      allow_send: z.boolean().default(false),
    })
    .optional(),
  sandbox: z
    .strictObject({
      image: z.string().default('familiar-sandbox:latest'),
      docker_host: z.string().optional(),
      pool_size: z.number().int().min(0).max(32).default(2),
      idle_s: z.number().positive().default(600),
      memory_mb: z.number().int().min(16).default(512),
      cpus: z.number().positive().default(1),
      pids_limit: z.number().int().min(8).default(128),
      tmpfs_mb: z.number().int().min(1).default(64),
      user: z.string().default('1000'),
      read_only_root: z.boolean().default(true),
      network: z.enum(['none', 'bridge']).default('none'),
      allow_network: z.boolean().default(false),
      timeout_s: z.number().positive().default(60),
      output_bytes: z.number().int().min(1024).default(65536),
      write_max_bytes: z.number().int().min(1024).default(5_000_000),
      /** Each conversation's workspace size limit in MB (its own loop-mounted filesystem); 0 = no limit. */
      workspace_mb: z.number().int().refine((mb) => mb === 0 || mb >= 32, 'use 0 (no limit) or at least 32 (MB)').default(1024),
      /** The longest `timeout_s` one sandbox_exec call may ask for. */
      max_timeout_s: z.number().positive().default(600),
      /** Extra labels on every container (all carry familiar.sandbox and an owner label anyway). */
      labels: z.record(z.string(), z.string()).default({}),
      code_agent: z
        .strictObject({
          command: z.string().min(1),
          image: z.string().optional(),
          env: z.record(z.string(), z.string()).default({}),
          timeout_s: z.number().positive().default(600),
          /** A real coding agent calls its model's API, so its one-off container gets a bridge network by default. */
          network: z.enum(['none', 'bridge']).default('bridge'),
          /** How the command takes the tool's `agent` argument (`opencode run --agent plan …`). */
          agent_flag: z.string().default('--agent'),
        })
        .optional(),
    })
    .optional(),
  skills: z.strictObject({ hub: z.string().optional() }).default({}),
  mcp: z.strictObject({ servers: z.record(z.string(), mcpServerSchema).default({}) }).default({}),
});

const jobSchema = z.strictObject({
  id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'use letters, digits, - and _'),
  cron: z.string().optional(),
  run_at: z.string().optional(),
  when: z.string().optional(),
  prompt: z.string().min(1),
  catch_up: z.enum(['once', 'skip']).default('once'),
  deliver_to: z.string().optional(),
  enabled: z.boolean().default(true),
  approve: z.array(z.string()).default([]),
});

const schedulerSchema = z.strictObject({
  default_chat: z.string().optional(),
  catch_up_window: duration().default(86400),
  unattended_tools: z.array(z.string()).optional(),
  run_timeout_s: z.number().positive().default(600),
  jobs: z.array(jobSchema).default([]),
});

const approvalSchema = z.strictObject({
  timeout_s: z.number().positive().default(300),
  auto_approve: z.array(z.string()).default([]),
});

const agentProfileSchema = z.strictObject({
  persona: z.string().optional(),
  model: z.string().optional(),
  tools: z.array(z.string()).default(['*']),
});

const routeSchema = z.strictObject({
  channel: z.enum(['telegram', 'discord', 'cli', 'console', 'scheduler']),
  chat_id: userId.optional(),
  agent: z.string(),
});

const logSchema = z.strictObject({
  level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  format: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

const httpServerSchema = z.strictObject({
  listen: z.string().optional(),
  token: secret,
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

export const configSchema = z.strictObject({
  timezone: z
    .string()
    .default(() => systemTimeZone())
    .refine(isValidTimeZone, { message: 'not an IANA time zone (e.g. Europe/Paris)' }),
  data_dir: z.string().default('./data'),
  /** Empty = the default, resolved by config/folders.ts: `<data_dir>/memory` (an existing `./memory` beside the config is kept). */
  memory_dir: z.string().default(''),
  /** Empty = the default, resolved by config/folders.ts: `<data_dir>/skills`. */
  skills_dir: z.string().default(''),
  log: logSchema.default({}),
  llm: llmSchema.default({}),
  agent: agentSchema.default({}),
  memory: memorySchema.default({}),
  channels: z
    .strictObject({ telegram: telegramSchema.optional(), discord: discordSchema.optional() })
    .default({}),
  tools: toolsSchema.default({}),
  scheduler: schedulerSchema.default({}),
  approval: approvalSchema.default({}),
  agents: z.record(z.string(), agentProfileSchema).default({}),
  routes: z.array(routeSchema).default([]),
  http: httpServerSchema.default({}),
});

export type Config = z.output<typeof configSchema>;
export type LlmConfig = Config['llm'];
export type ToolsConfig = Config['tools'];

