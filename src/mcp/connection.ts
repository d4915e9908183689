import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type CreateMessageResult,
  type Prompt,
} from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { Risk, ToolCallContext } from '../tools/types.js';
import { mcpTool, type RemoteTool } from './tool.js';
import type { ResourceServer } from './resources.js';
import { answerSampling, refusal, type SamplingDeps } from './sampling.js';

export type McpServerConfig = Config['tools']['mcp']['servers'][string];

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'failed' | 'closed';

/** What a connection needs from its manager. */
export interface ConnectionDeps {
  tools: ToolRegistry;
  log: Logger;
  retry?: { initialMs: number; maxMs: number };
  /** Answers sampling requests; absent: sampling is declared to no server. */
  sampling?: SamplingDeps;
  /** Called when the connection's prompts or its resources capability change (connected, lost, re-listed). */
  changed(): void;
}

const LIST_PAGES = 50;
const CONNECT_MS = 30_000;
const VERSION = '0.1.0';

/**
 * One configured server: connects (declaring roots, sampling and elicitation), registers its tools, lists its
 * prompts, withdraws everything when it fails or exits, reconnects with backoff. Sampling and elicitation requests
 * are answered only while Familiar waits on one of this server's calls: a server cannot spend the person's tokens
 * on its own.
 */
export class McpConnection implements ResourceServer {
  readonly name: string;
  readonly config: McpServerConfig;
  private readonly deps: ConnectionDeps;
  private readonly log: Logger;
  private current: Client | undefined;
  private registered: string[] = [];
  private promptList: Prompt[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /** This server's calls in flight (tool calls, resource reads), newest last: sampling is attributed to them. */
  private readonly active = new Map<string, { conversationId: string }>();
  private calls = 0;
  /** Reconnect after failures only once the daemon runs (`start`), not for one-off commands. */
  autoReconnect = false;
  state: ConnectionState = 'idle';
  error: string | undefined;
  failures = 0;

  constructor(name: string, config: McpServerConfig, deps: ConnectionDeps) {
    this.name = name;
    this.config = config;
    this.deps = deps;
    this.log = deps.log.child({ mcp: name });
  }

  get transportKind(): 'stdio' | 'http' {
    return this.config.url ? 'http' : 'stdio';
  }

  get tools(): string[] {
    return [...this.registered];
  }

  get risk(): Risk {
    return this.config.trust === 'low' ? 'low' : 'high';
  }

  get timeoutMs(): number {
    return this.config.timeout_s * 1000;
  }

  /** The prompts offered now (empty while not connected). */
  get prompts(): readonly Prompt[] {
    return this.state === 'connected' ? this.promptList : [];
  }

  /** The client while connected with the `resources` capability. */
  client(): Client | undefined {
    return this.state === 'connected' && this.current?.getServerCapabilities()?.resources ? this.current : undefined;
  }

  /** The client while connected (prompts). */
  connectedClient(): Client | undefined {
    return this.state === 'connected' ? this.current : undefined;
  }

  async during<T>(ctx: Pick<ToolCallContext, 'callId' | 'conversationId'>, work: () => Promise<T>): Promise<T> {
    this.calls += 1;
    const key = `${ctx.callId}/${this.calls}`;
    this.active.set(key, { conversationId: ctx.conversationId });
    try {
      return await work();
    } finally {
      this.active.delete(key);
    }
  }

  /** True while `client` is this server's live connection (a tool made for an older one answers "not connected"). */
  isLive(client: Client): boolean {
    return this.current === client && this.state === 'connected';
  }

  /** Connects unless connected or connecting; resolves when this attempt is over (never throws). */
  connect(): Promise<void> {
    if (this.closed || this.state === 'connected') return Promise.resolve();
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private capabilities(): ClientCapabilities {
    return {
      // The configured folders (none by default): a server that asks learns where it may work.
      roots: { listChanged: false },
      // Declared so tools that elicit are offered; every request is declined (see `elicit`).
      elicitation: { form: {} },
      ...(this.samplingOn() ? { sampling: {} } : {}),
    };
  }

  private samplingOn(): boolean {
    return this.config.sampling && this.deps.sampling !== undefined;
  }

  private makeClient(): Client {
    const client = new Client({ name: 'familiar', version: VERSION }, { capabilities: this.capabilities() });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: this.config.roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder })),
    }));
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      // Familiar has no form to show the person: the server hears "declined" at once instead of waiting.
      this.log.info({ message: request.params.message.slice(0, 300) }, `mcp ${this.name}: asked the person for input; declined (Familiar does not answer MCP elicitation)`);
      return { action: 'decline' };
    });
    if (this.samplingOn()) {
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => this.sample(request.params, extra.signal));
    }
    return client;
  }

  private async sample(params: Parameters<typeof answerSampling>[1]['params'], signal: AbortSignal): Promise<CreateMessageResult> {
    const sampling = this.deps.sampling;
    const call = [...this.active.values()].at(-1);
    if (!sampling) throw refusal(ErrorCode.InvalidRequest, 'sampling is off');
    if (!call) {
      this.log.warn(`mcp ${this.name}: sampling request outside any call refused`);
      throw refusal(ErrorCode.InvalidRequest, 'Familiar answers sampling requests only while it waits for one of this server\'s calls');
    }
    return answerSampling(sampling, { server: this.name, params, conversationId: call.conversationId, maxTokens: this.config.sampling_max_tokens, signal, log: this.log });
  }

  private async attempt(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.state = 'connecting';
    const client = this.makeClient();
    const transport = this.makeTransport();
    let ready = false;
    client.onclose = () => {
      if (this.current !== client) return;
      this.lost(ready ? 'the server closed the connection (exited?)' : 'the connection closed during start-up');
    };
    client.onerror = (error) => this.log.debug({ err: error }, 'mcp transport error');
    this.current = client;
    try {
      // Starting a server (`npx -y …` may download it) is slower than a call: at least 30 s, whatever timeout_s says.
      await client.connect(transport, { timeout: Math.max(this.timeoutMs, CONNECT_MS) });
      const remote = await this.listTools(client);
      const prompts = await this.listPrompts(client);
      if (this.closed || this.current !== client) return;
      this.register(remote, client);
      this.promptList = prompts;
      ready = true;
      this.state = 'connected';
      this.error = undefined;
      this.failures = 0;
      this.watchLists(client);
      this.log.info({ tools: this.registered.length, prompts: prompts.length, resources: client.getServerCapabilities()?.resources !== undefined }, `mcp ${this.name}: connected`);
      this.deps.changed();
    } catch (error) {
      if (this.current === client) this.lost(errorMessage(error));
    }
  }

  private watchLists(client: Client): void {
    const capabilities = client.getServerCapabilities();
    if (capabilities?.tools?.listChanged) {
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          const remote = await this.listTools(client);
          if (this.current === client) this.register(remote, client);
        } catch (error) {
          this.log.warn({ err: error }, 'mcp tools could not be re-listed');
        }
      });
    }
    if (capabilities?.prompts?.listChanged) {
      client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
        try {
          const prompts = await this.listPrompts(client);
          if (this.current !== client) return;
          this.promptList = prompts;
          this.deps.changed();
        } catch (error) {
          this.log.warn({ err: error }, 'mcp prompts could not be re-listed');
        }
      });
    }
  }

  private makeTransport(): Transport {
    if (this.config.url) {
      return new StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers: { ...this.config.headers } } });
    }
    // Only the SDK's safe default environment (PATH, HOME, …) plus the server's own `env`: our secrets stay here.
    const transport = new StdioClientTransport({ command: this.config.command ?? '', args: this.config.args, env: { ...this.config.env }, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => this.log.debug({ stderr: chunk.toString('utf8').slice(0, 2000) }, 'mcp server stderr'));
    return transport;
  }

  private async listTools(client: Client): Promise<RemoteTool[]> {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES; page += 1) {
      const result = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
      tools.push(...(result.tools as RemoteTool[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Its prompts; a server whose prompt list fails still serves its tools (the failure is logged). */
  private async listPrompts(client: Client): Promise<Prompt[]> {
    if (!client.getServerCapabilities()?.prompts) return [];
    const prompts: Prompt[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < LIST_PAGES; page += 1) {
        const result = await client.listPrompts(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
        prompts.push(...result.prompts);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
    } catch (error) {
      this.log.warn({ err: error }, `mcp ${this.name}: its prompts could not be listed; they are left out`);
    }
    return prompts;
  }

  private register(remote: RemoteTool[], client: Client): void {
    this.withdraw();
    for (const tool of remote) {
      const canonical = `mcp:${this.name}:${tool.name}`;
      try {
        this.deps.tools.register(mcpTool(this, canonical, tool, client));
        this.registered.push(canonical);
      } catch (error) {
        this.log.warn({ err: error, tool: canonical }, 'mcp tool not registered');
      }
    }
  }

  private withdraw(): void {
    for (const name of this.registered) this.deps.tools.unregister(name);
    this.registered = [];
  }

  private lost(reason: string): void {
    const client = this.current;
    const wasConnected = this.state === 'connected';
    this.current = undefined;
    this.withdraw();
    this.promptList = [];
    if (client) void client.close().catch(() => undefined);
    if (this.closed) return;
    this.state = 'failed';
    this.error = reason;
    this.failures += 1;
    if (wasConnected) this.deps.changed();
    if (!this.autoReconnect) {
      this.log.warn({ reason }, `mcp ${this.name}: unavailable`);
      return;
    }
    const retry = this.deps.retry ?? { initialMs: 1000, maxMs: 300_000 };
    const base = Math.min(retry.maxMs, retry.initialMs * 2 ** Math.min(this.failures - 1, 20));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.log.warn({ reason, retryInMs: delay }, `mcp ${this.name}: unavailable, its tools and prompts are withdrawn until it is back`);
    this.retryTimer = setTimeout(() => {
      void this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  async close(): Promise<void> {
    const wasConnected = this.state === 'connected';
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.current;
    this.current = undefined;
    this.withdraw();
    this.promptList = [];
    this.state = 'closed';
    if (wasConnected) this.deps.changed();
    if (client) await client.close().catch(() => undefined);
  }

  /** Ends the current connection as a failure would (tests and `reconnect`). */
  drop(reason: string): void {
    if (this.current) this.lost(reason);
  }
}
