// The reference MCP servers from the npm registry (devDependencies), spawned over stdio by the real SDK client.
import { fileURLToPath } from 'node:url';

const packageFile = (relative: string) => fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${relative}`, import.meta.url));

/** `@modelcontextprotocol/server-everything`: tools, resources, templates, prompts, progress, sampling, elicitation, roots. */
export const EVERYTHING = { command: process.execPath, args: [packageFile('server-everything/dist/index.js'), 'stdio'] };

/** `@modelcontextprotocol/server-filesystem` serving `folders` (MCP roots from the client replace them). */
export function filesystemServer(...folders: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [packageFile('server-filesystem/dist/index.js'), ...folders] };
}

export const FAKE_MCP_SERVER = fileURLToPath(new URL('../fakes/mcp-server.mjs', import.meta.url));

export async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
