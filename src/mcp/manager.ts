import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ToolRegistry } from '../tools/registry.js';
import { fail, type AnyTool } from '../tools/types.js';
import { cleanInputSchema, toToolResult } from './convert.js';

export type McpServerConfig = Config['tools']['mcp']['servers'][string];

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: 'idle' | 'connecting' | 'connected' | 'failed' | 'closed';
  /** Canonical names of the tools registered now (empty while withdrawn). */
  tools: string[];
  error?: string;
  /** Failed connections in a row (reset by a successful one). */
  failures: number;
}

export interface McpManagerOptions {
  servers: Readonly<Record<string, McpServerConfig>>;
  tools: ToolRegistry;
  log: Logger;
  /** Reconnection backoff: first wait, doubling up to the cap (with jitter). */
  retry?: { initialMs: number; maxMs: number };
}

interface RemoteTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema?: unknown;
}

/** One configured server: connects, registers its tools, withdraws them when it fails or exits, reconnects with backoff. */
class McpConnection {
  readonly name: string;
  private readonly config: McpServerConfig;
  private readonly manager: McpManagerOptions;
  private readonly log: Logger;
  private client: Client | undefined;
  private registered: string[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /** Reconnect after failures only once the daemon runs (`start`), not for one-off commands. */
  autoReconnect = false;
  state: McpServerStatus['state'] = 'idle';
  error: string | undefined;
  failures = 0;

  constructor(name: string, config: McpServerConfig, manager: McpManagerOptions) {
    this.name = name;
    this.config = config;
    this.manager = manager;
    this.log = manager.log.child({ mcp: name });
  }

  get transportKind(): 'stdio' | 'http' {
    return this.config.url ? 'http' : 'stdio';
  }

  get tools(): string[] {
    return [...this.registered];
  }

  /** Connects unless connected or connecting; resolves when this attempt is over (never throws). */
  connect(): Promise<void> {
    if (this.closed || this.state === 'connected') return Promise.resolve();
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.state = 'connecting';
    const client = new Client({ name: 'familiar', version: '0.1.0' });
    const transport = this.makeTransport();
    let ready = false;
    client.onclose = () => {
      if (this.client !== client) return;
      this.lost(ready ? 'the server closed the connection (exited?)' : 'the connection closed during start-up');
    };
    client.onerror = (error) => this.log.debug({ err: error }, 'mcp transport error');
    this.client = client;
    try {
      await client.connect(transport, { timeout: this.config.timeout_s * 1000 });
      const remote = await this.listAll(client);
      if (this.closed || this.client !== client) return;
      this.register(remote, client);
      ready = true;
      this.state = 'connected';
      this.error = undefined;
      this.failures = 0;
      if (client.getServerCapabilities()?.tools?.listChanged) {
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
          try {
            this.register(await this.listAll(client), client);
          } catch (error) {
            this.log.warn({ err: error }, 'mcp tools could not be re-listed');
          }
        });
      }
      this.log.info({ tools: this.registered.length }, `mcp ${this.name}: connected`);
    } catch (error) {
      if (this.client === client) this.lost(errorMessage(error));
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

  private async listAll(client: Client): Promise<RemoteTool[]> {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page += 1) {
      const result = await client.listTools(cursor ? { cursor } : {}, { timeout: this.config.timeout_s * 1000 });
      tools.push(...(result.tools as RemoteTool[]));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  private register(remote: RemoteTool[], client: Client): void {
    this.withdraw();
    for (const tool of remote) {
      const canonical = `mcp:${this.name}:${tool.name}`;
      try {
        this.manager.tools.register(this.toNative(canonical, tool, client));
        this.registered.push(canonical);
      } catch (error) {
        this.log.warn({ err: error, tool: canonical }, 'mcp tool not registered');
      }
    }
  }

  private toNative(canonical: string, tool: RemoteTool, client: Client): AnyTool {
    const server = this.name;
    const timeoutMs = this.config.timeout_s * 1000;
    const source = `MCP server ${server} (tool ${tool.name})`;
    return {
      name: canonical,
      group: `mcp:${server}`,
      description: `[MCP ${server}] ${(tool.description ?? tool.title ?? tool.name).slice(0, 1000)}`,
      parameters: cleanInputSchema(tool.inputSchema),
      risk: this.config.trust === 'low' ? 'low' : 'high',
      external: true,
      timeoutMs,
      execute: async (params: Record<string, unknown>, ctx) => {
        if (this.client !== client || this.state !== 'connected') {
          return fail(`The MCP server ${server} is not connected right now (it is being reconnected); try again later or do without it.`);
        }
        try {
          const result = await client.callTool({ name: tool.name, arguments: params }, undefined, { signal: ctx.signal, timeout: timeoutMs });
          return toToolResult(canonical, source, result);
        } catch (error) {
          if (error instanceof McpError) return fail(`${canonical} failed: ${errorMessage(error)}. Check the arguments against its schema.`);
          return fail(`${canonical} could not be reached: ${errorMessage(error)}`);
        }
      },
    };
  }

  private withdraw(): void {
    for (const name of this.registered) this.manager.tools.unregister(name);
    this.registered = [];
  }

  private lost(reason: string): void {
    const client = this.client;
    this.client = undefined;
    this.withdraw();
    if (client) void client.close().catch(() => undefined);
    if (this.closed) return;
    this.state = 'failed';
    this.error = reason;
    this.failures += 1;
    if (!this.autoReconnect) {
      this.log.warn({ reason }, `mcp ${this.name}: unavailable`);
      return;
    }
    const retry = this.manager.retry ?? { initialMs: 1000, maxMs: 300_000 };
    const base = Math.min(retry.maxMs, retry.initialMs * 2 ** Math.min(this.failures - 1, 20));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.log.warn({ reason, retryInMs: delay }, `mcp ${this.name}: unavailable, its tools are withdrawn until it is back`);
    this.retryTimer = setTimeout(() => {
      void this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.withdraw();
    this.state = 'closed';
    if (client) await client.close().catch(() => undefined);
  }

  /** Ends the current connection as a failure would (tests and `reconnect`). */
  drop(reason: string): void {
    if (this.client) this.lost(reason);
  }
}

/**
 * The MCP client side: one connection per `tools.mcp.servers` entry. Contract: never throws; a server
 * that fails is reported in `status()` and in the log, and the rest of the daemon runs.
 */
export class McpManager {
  private readonly connections: McpConnection[];

  constructor(options: McpManagerOptions) {
    this.connections = Object.entries(options.servers).map(([name, config]) => new McpConnection(name, config, options));
  }

  /** Connects every server in the background and keeps reconnecting them; start-up does not wait. */
  start(): void {
    for (const connection of this.connections) {
      connection.autoReconnect = true;
      void connection.connect();
    }
  }

  /** Connects every server now and waits (each bounded by its `timeout_s`): for `tools list` and `doctor`. */
  async connectNow(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.connect()));
  }

  status(): McpServerStatus[] {
    return this.connections.map((connection) => ({
      name: connection.name,
      transport: connection.transportKind,
      state: connection.state,
      tools: connection.tools,
      failures: connection.failures,
      ...(connection.error !== undefined ? { error: connection.error } : {}),
    }));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}
