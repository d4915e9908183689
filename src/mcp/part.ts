import path from 'node:path';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChatCommand, ChatCommands, Part } from '../part.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { McpManager } from './manager.js';
import type { SamplingDeps } from './sampling.js';

export interface McpPartDeps {
  config: Config;
  tools: ToolRegistry;
  log: Logger;
  /** The LLM client, budget and usage ledger for servers' sampling requests; absent: sampling is declined. */
  sampling?: SamplingDeps;
}

export interface McpPart {
  manager: McpManager;
  part: Part;
  /**
   * `/<server>_<prompt>` commands, live: they appear and disappear as servers connect and go. The root looks them
   * up after every fixed command, so a prompt never shadows one.
   */
  prompts: ChatCommands;
}

/**
 * MCP servers from `tools.mcp.servers`: tools `mcp:<server>:<tool>`, registered on the registry as servers come
 * and go; `mcp_resources` while a server offers resources; prompts as chat commands (and `/prompts` to list them);
 * sampling answered through `sampling`. Connected in the background by `start` (or at once by
 * `manager.connectNow()` in one-shot commands).
 */
export async function createMcpPart(deps: McpPartDeps): Promise<McpPart | undefined> {
  const servers = deps.config.tools.mcp.servers;
  const names = Object.keys(servers);
  if (names.length === 0) {
    deps.log.debug('mcp: no servers configured (tools.mcp.servers)');
    return undefined;
  }
  for (const name of names) {
    const server = servers[name];
    if (!/^[a-zA-Z0-9_-]{1,40}$/.test(name)) throw new ConfigError(`tools.mcp.servers.${name}`, 'server names may use letters, digits, - and _ only');
    if (!server) continue;
    if (Boolean(server.command) === Boolean(server.url)) {
      throw new ConfigError(`tools.mcp.servers.${name}`, 'give either command (stdio) or url (streamable HTTP), not both or neither');
    }
    server.roots.forEach((folder, index) => {
      if (!path.isAbsolute(folder)) throw new ConfigError(`tools.mcp.servers.${name}.roots.${index}`, `"${folder}" is not an absolute path; roots are folders given in full (/home/me/projects)`);
    });
  }
  // The MCP SDK is loaded only when a server is configured.
  const { McpManager } = await import('./manager.js');
  const manager = new McpManager({
    servers, tools: deps.tools, log: deps.log.child({ component: 'mcp' }), maxResourceBytes: deps.config.tools.mcp.max_resource_bytes,
    ...(deps.sampling ? { sampling: deps.sampling } : {}),
  });
  const listPrompts: ChatCommand = { description: 'the prompts of the MCP servers, with their arguments', run: async () => manager.describePrompts() };
  const part: Part = {
    name: 'mcp',
    commands: new Map([['prompts', listPrompts]]),
    async start() {
      manager.start();
    },
    async close() {
      await manager.close();
    },
    async doctor() {
      await manager.connectNow();
      return manager.status().map((server) =>
        server.state === 'connected'
          ? {
            status: 'ok' as const,
            label: `mcp ${server.name}: ${server.tools.length} tools, ${server.prompts.length} prompts${server.resources ? ', resources' : ''} (${server.transport})`,
          }
          : {
            status: 'fail' as const,
            label: `mcp ${server.name}`,
            detail: server.error ?? server.state,
            fix: server.transport === 'stdio' ? `check tools.mcp.servers.${server.name}.command and args (run it by hand)` : `check tools.mcp.servers.${server.name}.url and headers`,
          },
      );
    },
  };
  deps.log.info({ servers: names }, `mcp: ${names.length} server(s) configured; connecting in the background once started`);
  return { manager, part, prompts: manager.promptCommands };
}
