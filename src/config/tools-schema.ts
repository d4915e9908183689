import { z } from 'zod/v3';
import { calendarSchema } from './calendar-schema.js';
import { emailSchema } from './email-schema.js';
import { where, type Has } from './written.js';

/** Part of the configuration contract (schema.ts): `tools`, the built-in tools' settings and the tools of others. */

const secret = () => z.string().default('');

const httpPresetSchema = () => z.strictObject({
  base_url: z.string().url(),
  headers: z.record(z.string(), z.string()).default({}),
  description: z.string().optional(),
});

const mcpServerSchema = () => z.strictObject({
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().url().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  trust: z.enum(['low', 'high']).default('high'),
  timeout_s: z.number().positive().default(30),
  /** A call that reports progress gets timeout_s more after each report, up to this long in all. */
  max_timeout_s: z.number().positive().default(300),
  /** Answer the server's sampling requests with our LLM (no tools, counted against the daily budget). */
  sampling: z.boolean().default(true),
  /** The most tokens one sampling answer may use (a smaller maxTokens from the server is kept). */
  sampling_max_tokens: z.number().int().positive().default(1000),
  /** Folders the server is told it may work in (MCP roots): absolute paths. Default none. */
  roots: z.array(z.string()).default([]),
});

/** A script tool's own settings (`tools.scripts.<name>`): only here can it be let out of the sandbox. */
const scriptToolSchema = () => z.strictObject({
  /** Run on the host, with the daemon's rights, instead of in the sandbox. Never set by the tool's own YAML. */
  host: z.boolean().default(false),
  /** Environment variables for this script alone (a host script gets nothing else; values are secrets). */
  env: z.record(z.string(), z.string()).default({}),
});

const webSearchSchema = () => z.strictObject({
  provider: z.enum(['tavily', 'exa', 'searxng']).default('tavily'),
  api_key: secret(),
  base_url: z.string().url().optional(),
  max_results: z.number().int().min(1).max(20).default(5),
  timeout_s: z.number().positive().default(20),
});

const httpToolSchema = () => z.strictObject({
  presets: z.record(z.string(), httpPresetSchema()).default({}),
  allow_hosts: z.array(z.string()).default([]),
  allow_private: z.boolean().default(false),
  timeout_s: z.number().positive().default(20),
  max_bytes: z.number().int().positive().default(2_000_000),
  max_redirects: z.number().int().min(0).max(20).default(5),
});

const sandboxSchema = () => z
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
    /**
     * Who commands run as in a turn that holds outside content: a second user that cannot change or delete the
     * files the workspace already had (src/sandbox/guest.ts). Numeric, and not the uid or gid of `user`.
     */
    guest_user: z.string().regex(/^\d+:\d+$/, 'a numeric uid:gid, e.g. "2000:2000"').default('2000:2000'),
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
  .superRefine((sandbox, context) => {
    const [guestUid, guestGid] = sandbox.guest_user.split(':');
    const owner = /^(\d+)(?::(\d+))?$/.exec(sandbox.user.trim());
    if (!owner) return;
    if (owner[1] === guestUid || (owner[2] ?? owner[1]) === guestGid) {
      context.addIssue({ code: 'custom', path: ['guest_user'], message: `must differ in both uid and gid from tools.sandbox.user (${sandbox.user}): the guest must not own, or share a group with, the person's files` });
    }
  });

const imagesSchema = () => z.strictObject({
  /** Default: llm.base_url (and then llm.api_key, which never goes to another host). */
  base_url: z.string().url().optional(),
  api_key: secret(),
  model: z.string().min(1),
  /** The size asked for when a call gives none (`1024x1024`, `auto`); absent: the endpoint's default. */
  size: z.string().regex(/^(auto|\d{2,5}x\d{2,5})$/, 'WIDTHxHEIGHT such as 1024x1024, or auto').optional(),
  timeout_s: z.number().positive().default(120),
  /**
   * What one image counts in llm.daily_token_budget when the endpoint reports no token use (DALL·E does not;
   * gpt-image-1 does, and then that is counted). 1056 is gpt-image-1's output for a medium 1024x1024 image.
   */
  tokens_per_image: z.number().int().min(0).default(1056),
  /** The largest image accepted from the endpoint. */
  max_bytes: z.number().int().positive().default(20_000_000),
});

const mcpToolSchema = (has: Has) => z.strictObject({
  servers: z.record(z.string(), where(has, 'tools.mcp.servers', mcpServerSchema)).default({}),
  /** The largest resource (text or binary) `mcp_resources` passes on; larger ones are refused with their size. */
  max_resource_bytes: z.number().int().positive().default(5 * 1024 * 1024),
});

export const toolsSchema = (has: Has) => z.strictObject({
  /**
   * Which built-in tools exist: names, groups (`memory.*`), `*`, and `!name` to leave one out. Absent: all of them.
   * Checked against the catalogue (src/tools/builtins.ts) when the daemon is made. Custom tools and MCP tools are not
   * built-ins: they exist when their module or server does.
   */
  enabled: z.array(z.string().min(1)).optional(),
  /** Reload the custom tools in `tools_dir` when a file there changes (the running daemon only). */
  watch: z.boolean().default(true),
  scripts: z.record(z.string(), where(has, 'tools.scripts', scriptToolSchema)).default({}),
  /** Per custom tool, free-form: what its module reads as `ctx.settings` (a URL, a device id, `${TOKEN}`). */
  settings: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  timeout_s: z.number().positive().default(30),
  timeouts: z.record(z.string(), z.number().positive()).default({}),
  output_chars: z.number().int().min(500).default(16000),
  web_search: where(has, 'tools.web_search', webSearchSchema).optional(),
  http: httpToolSchema().default({}),
  email: where(has, 'tools.email', emailSchema).optional(),
  /** The `calendar` tool: the person's CalDAV calendars (the server is the source of truth) and read-only ICS feeds. */
  calendar: where(has, 'tools.calendar', calendarSchema).optional(),
  sandbox: where(has, 'tools.sandbox', sandboxSchema).optional(),
  skills: z.strictObject({ hub: z.string().optional() }).default({}),
  /** image_generate: an OpenAI-compatible `/images/generations` endpoint. */
  images: where(has, 'tools.images', imagesSchema).optional(),
  mcp: mcpToolSchema(has).default({}),
});
