import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChatCommand } from '../part.js';
import type { ToolRegistry } from '../registry/registry.js';
import { McpConnection, type ConnectionState, type McpServerConfig } from './connection.js';
import { oneLine, parsePromptArguments, promptCommandName, promptHelp, promptTurn, promptUsage } from './prompts.js';
import { createResourcesTool, RESOURCES_TOOL } from './resources.js';
import type { SamplingDeps } from './sampling.js';

export type { McpServerConfig };

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: ConnectionState;
  /** Canonical names of the tools registered now (empty while withdrawn). */
  tools: string[];
  /** Chat commands of its prompts now. */
  prompts: string[];
  /** Offers resources (read through `mcp_resources`). */
  resources: boolean;
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
  /** Answers servers' sampling requests (those with `sampling: true`); absent: no server is offered sampling. */
  sampling?: SamplingDeps;
  /** `tools.mcp.max_resource_bytes`. */
  maxResourceBytes?: number;
}

/**
 * The MCP client side: one connection per `tools.mcp.servers` entry. Their tools are registered on the registry,
 * their prompts are chat commands in `promptCommands` (a live map: entries come and go with the servers), and
 * while any connected server offers resources the `mcp_resources` tool is registered. Contract: never throws; a
 * server that fails is reported in `status()` and in the log, and the rest of the daemon runs.
 */
export class McpManager {
  private readonly connections: McpConnection[];
  private readonly options: McpManagerOptions;
  /** `/<server>_<prompt>` for every prompt of a connected server; changes as servers connect and go. */
  readonly promptCommands = new Map<string, ChatCommand>();
  /** Which prompt each command runs, for `/prompts`. */
  private readonly promptOf = new Map<string, { server: string; prompt: Prompt }>();
  /** The servers `mcp_resources` was registered for (its description names them). */
  private resourcesFor = '';

  constructor(options: McpManagerOptions) {
    this.options = options;
    this.connections = Object.entries(options.servers).map(([name, config]) => new McpConnection(name, config, {
      tools: options.tools,
      log: options.log,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.sampling ? { sampling: options.sampling } : {}),
      changed: () => this.refresh(),
    }));
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
      prompts: [...this.promptOf].filter(([, entry]) => entry.server === connection.name).map(([command]) => command),
      resources: connection.client() !== undefined,
      failures: connection.failures,
      ...(connection.error !== undefined ? { error: connection.error } : {}),
    }));
  }

  /** `/prompts`: every prompt command with its usage, and the servers that are not connected. */
  describePrompts(): string {
    const lines: string[] = [];
    for (const [command, { server, prompt }] of this.promptOf) {
      lines.push(`${promptUsage(command, prompt)} — ${oneLine(prompt.description ?? prompt.title ?? prompt.name, 120)} (${server})`);
    }
    const away = this.connections.filter((connection) => connection.state !== 'connected').map((connection) => connection.name);
    if (lines.length === 0) lines.push('No MCP prompts right now.');
    else lines.unshift('Prompts of the MCP servers (send one to start it here):');
    if (away.length > 0) lines.push(`Not connected now: ${away.join(', ')}.`);
    return lines.join('\n');
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  /** Rebuilds the prompt commands and the resources tool from the connected servers. */
  private refresh(): void {
    this.promptCommands.clear();
    this.promptOf.clear();
    for (const connection of this.connections) {
      for (const prompt of connection.prompts) {
        const command = promptCommandName(connection.name, prompt.name, (name) => this.promptCommands.has(name));
        if (command === undefined) {
          this.options.log.warn({ mcp: connection.name, prompt: prompt.name }, 'mcp prompt has no usable command name; left out');
          continue;
        }
        this.promptCommands.set(command, this.promptCommand(connection, prompt, command));
        this.promptOf.set(command, { server: connection.name, prompt });
      }
    }
    const withResources = this.connections.filter((connection) => connection.client() !== undefined).map((connection) => connection.name).join(',');
    if (withResources === this.resourcesFor) return;
    this.resourcesFor = withResources;
    this.options.tools.unregister(RESOURCES_TOOL);
    if (withResources !== '') {
      this.options.tools.register(createResourcesTool({ servers: () => this.connections, maxBytes: this.options.maxResourceBytes ?? 5 * 1024 * 1024 }));
    }
  }

  private promptCommand(connection: McpConnection, prompt: Prompt, command: string): ChatCommand {
    const server = connection.name;
    const args = (prompt.arguments ?? []).map((argument) => (argument.required ? argument.name : `[${argument.name}]`));
    return {
      description: `${oneLine(prompt.description ?? prompt.title ?? prompt.name, 150)} (MCP ${server} prompt${args.length > 0 ? `; ${args.join(' ')}` : ''})`,
      run: async ({ args: text, conversationId }) => {
        const client = connection.connectedClient();
        if (!client) return `The MCP server ${server} is not connected right now; try /${command} again later.`;
        if (!connection.prompts.some((offered) => offered.name === prompt.name)) return `${server} no longer offers the prompt ${prompt.name}; /prompts lists what it has now.`;
        const parsed = parsePromptArguments(text, prompt);
        if (!parsed.success) return `${parsed.error}\n${promptHelp(command, prompt)}`;
        try {
          const result = await connection.during({ callId: `prompt:${command}`, conversationId }, () =>
            client.getPrompt({ name: prompt.name, arguments: parsed.value }, { timeout: connection.timeoutMs }));
          return promptTurn(server, prompt.name, result);
        } catch (error) {
          return `${server} could not give the prompt: ${oneLine(errorMessage(error), 300)}\n${promptHelp(command, prompt)}`;
        }
      },
    };
  }
}
