import type { App } from '../app.js';
import { ConfigError } from '../errors.js';

/** MCP servers from `tools.mcp.servers`: tools `mcp:<server>:<tool>`, connected in the background by `start`. */
export async function installMcp(app: App): Promise<void> {
  const servers = app.config.tools.mcp.servers;
  const names = Object.keys(servers);
  if (names.length === 0) {
    app.log.debug('mcp: no servers configured (tools.mcp.servers)');
    return;
  }
  for (const name of names) {
    const server = servers[name];
    if (!/^[a-zA-Z0-9_-]{1,40}$/.test(name)) throw new ConfigError(`tools.mcp.servers.${name}`, 'server names may use letters, digits, - and _ only');
    if (!server) continue;
    if (Boolean(server.command) === Boolean(server.url)) {
      throw new ConfigError(`tools.mcp.servers.${name}`, 'give either command (stdio) or url (streamable HTTP), not both or neither');
    }
  }
  // The MCP SDK is loaded only when a server is configured.
  const { McpManager } = await import('./manager.js');
  const manager = new McpManager({ servers, tools: app.tools, log: app.log.child({ component: 'mcp' }) });
  app.context.mcp = manager;
  app.modules.push({
    name: 'mcp',
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
          ? { status: 'ok' as const, label: `mcp ${server.name}: ${server.tools.length} tools (${server.transport})` }
          : {
              status: 'fail' as const,
              label: `mcp ${server.name}`,
              detail: server.error ?? server.state,
              fix: server.transport === 'stdio' ? `check tools.mcp.servers.${server.name}.command and args (run it by hand)` : `check tools.mcp.servers.${server.name}.url and headers`,
            },
      );
    },
  });
  app.log.info({ servers: names }, `mcp: ${names.length} server(s) configured; connecting in the background once started`);
}
