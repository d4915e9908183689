import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors.js';
import { fail, type AnyTool, type Risk, type ToolCallContext } from '../tools/types.js';
import { cleanInputSchema, toToolResult } from './convert.js';

export interface RemoteTool {
  name: string;
  description?: string;
  title?: string;
  inputSchema?: unknown;
}

/** The server a tool belongs to, as the tool sees it. */
export interface ToolHost {
  name: string;
  config: { timeout_s: number; max_timeout_s: number };
  risk: Risk;
  timeoutMs: number;
  isLive(client: Client): boolean;
  during<T>(ctx: Pick<ToolCallContext, 'callId' | 'conversationId'>, work: () => Promise<T>): Promise<T>;
}

/**
 * One server tool as a NativeTool `mcp:<server>:<tool>`: high-risk unless the server has `trust: low`, outside
 * content, its progress reports forwarded to the turn (and moving its deadline, up to `max_timeout_s`).
 */
export function mcpTool(host: ToolHost, canonical: string, tool: RemoteTool, client: Client): AnyTool {
  const server = host.name;
  const timeoutMs = host.timeoutMs;
  const maxTimeoutMs = Math.max(timeoutMs, host.config.max_timeout_s * 1000);
  const source = `MCP server ${server} (tool ${tool.name})`;
  return {
    name: canonical,
    group: `mcp:${server}`,
    // One grant for a server's tools: `mcp:github` (agents' `permissions`).
    permissions: [`mcp:${server}`],
    description: `[MCP ${server}] ${(tool.description ?? tool.title ?? tool.name).slice(0, 1000)}`,
    parameters: cleanInputSchema(tool.inputSchema),
    risk: host.risk,
    external: true,
    vouches: true,
    // Whatever the arguments say goes to the server, which may send it anywhere: a way out that cannot be checked.
    effects: [{ kind: 'egress', carriesData: true, what: `a call to the MCP server ${server}` }],
    timeoutMs,
    maxTimeoutMs,
    execute: async (params: Record<string, unknown>, ctx) => {
      if (!host.isLive(client)) {
        return fail(`The MCP server ${server} is not connected right now (it is being reconnected); try again later or do without it.`);
      }
      try {
        const result = await host.during(ctx, () => client.callTool({ name: tool.name, arguments: params }, undefined, {
          signal: ctx.signal,
          // Progress keeps a long call alive (the registry moves its deadline the same way), up to the cap.
          timeout: timeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: maxTimeoutMs,
          onprogress: (progress) => ctx.emit?.({
            type: 'progress',
            progress: progress.progress,
            ...(progress.total !== undefined ? { total: progress.total } : {}),
            ...(typeof progress.message === 'string' && progress.message !== '' ? { message: progress.message.slice(0, 300) } : {}),
          }),
        }));
        return toToolResult(canonical, source, result, ctx.config.tools.output_chars);
      } catch (error) {
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          return fail(`${canonical} timed out: ${errorMessage(error)}. Try a smaller task.`);
        }
        if (error instanceof McpError) return fail(`${canonical} failed: ${errorMessage(error)}. Check the arguments against its schema.`);
        return fail(`${canonical} could not be reached: ${errorMessage(error)}`);
      }
    },
  };
}
