import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors.js';
import type { Result } from '../lib/result.js';
import { wrapOutside } from '../tools/external.js';
import { fail, type AnyTool, type Artifact, type Risk, type ToolCallContext, type ToolResult } from '../tools/types.js';
import { oneLine } from './prompts.js';

/** A connected server as the resources tool sees it. */
export interface ResourceServer {
  name: string;
  risk: Risk;
  timeoutMs: number;
  /** The client while connected with the `resources` capability. */
  client(): Client | undefined;
  /** Runs `work` as one of this server's calls for `ctx` (a sampling request during it is attributed to it). */
  during<T>(ctx: ToolCallContext, work: () => Promise<T>): Promise<T>;
}

export const RESOURCES_TOOL = 'mcp_resources';

const LIST_PAGES = 10;
const LIST_ITEMS = 200;
/** Room left for the wrapper and notes inside `tools.output_chars`, so the end marker is never cut off. */
const WRAPPER_CHARS = 600;

interface Listing {
  resources: Resource[];
  templates: ResourceTemplate[];
  /** More existed than were listed. */
  more: boolean;
}

/**
 * `mcp_resources {action: list|read, server?, uri?}`: the documents and data MCP servers offer. `list` shows each
 * server's resources and URI templates; `read` fetches one URI (a listed one, or a template filled in). Results are
 * outside content, wrapped and tainting the turn; a resource larger than `maxBytes` is refused with its size,
 * text is cut to fit `tools.output_chars`, binary content comes back as a file (an image as an image).
 */
export function createResourcesTool(deps: { servers: () => ResourceServer[]; maxBytes: number }): AnyTool {
  const connected = () => deps.servers().filter((server) => server.client() !== undefined);
  return {
    name: RESOURCES_TOOL,
    group: 'mcp',
    description: [
      'Read resources (documents, files, data) that connected MCP servers offer.',
      'action "list": what each server has, with URI templates ({placeholders} you fill in);',
      'action "read" with uri: the content of one resource (server is needed only when two servers could serve the URI).',
      `Servers with resources now: ${connected().map((server) => server.name).join(', ') || 'none'}.`,
    ].join(' '),
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'read'], description: 'list what is offered, or read one URI' },
        server: { type: 'string', description: 'the MCP server name (see list)' },
        uri: { type: 'string', description: 'for read: a resource URI from list, or a URI template with its placeholders filled in' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    external: true,
    vouches: true,
    // Listing is harmless; a read is as risky as the server's tools (high unless the server has trust: low).
    risk: (params: { action?: string; server?: string }) => {
      if (params.action !== 'read') return 'low';
      const candidates = deps.servers().filter((server) => params.server === undefined || server.name === params.server);
      return candidates.length > 0 && candidates.every((server) => server.risk === 'low') ? 'low' : 'high';
    },
    // A read sends the URI the model wrote to the server (a template's placeholders can carry anything): a way out
    // whose destination cannot be checked, like any MCP call. A list sends nothing the model composed.
    effects: (params: { action?: string; server?: string }) => params.action === 'read'
      ? [{ kind: 'egress', what: `a resource read from the MCP server ${params.server ?? '(any)'}` }]
      : [],
    async execute(params: { action: 'list' | 'read'; server?: string; uri?: string }, ctx) {
      const servers = connected();
      if (params.server !== undefined && !servers.some((server) => server.name === params.server)) {
        const known = deps.servers().some((server) => server.name === params.server);
        return fail(known
          ? `The MCP server ${params.server} is not connected right now (or offers no resources); try again later or use another: ${names(servers)}.`
          : `There is no MCP server "${params.server}" with resources. Servers with resources now: ${names(servers)}.`);
      }
      if (servers.length === 0) return fail('No MCP server with resources is connected right now; try again later.');
      if (params.action === 'list') return list(params.server === undefined ? servers : servers.filter((server) => server.name === params.server), ctx);
      if (params.uri === undefined || params.uri.trim() === '') return fail('Give the uri to read (action "list" shows them).');
      return read(servers, params.server, params.uri.trim(), ctx, deps.maxBytes);
    },
  };
}

function names(servers: ResourceServer[]): string {
  return servers.map((server) => server.name).join(', ') || 'none';
}

async function listOf(server: ResourceServer, ctx: ToolCallContext): Promise<Listing> {
  const client = server.client();
  if (!client) throw new Error('not connected');
  const options = { signal: ctx.signal, timeout: server.timeoutMs };
  const resources: Resource[] = [];
  const templates: ResourceTemplate[] = [];
  let more = false;
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES; page += 1) {
    const result = await client.listResources(cursor ? { cursor } : {}, options);
    resources.push(...result.resources);
    cursor = result.nextCursor;
    if (!cursor || resources.length >= LIST_ITEMS) break;
  }
  if (cursor || resources.length > LIST_ITEMS) more = true;
  cursor = undefined;
  try {
    for (let page = 0; page < LIST_PAGES; page += 1) {
      const result = await client.listResourceTemplates(cursor ? { cursor } : {}, options);
      templates.push(...result.resourceTemplates);
      cursor = result.nextCursor;
      if (!cursor || templates.length >= LIST_ITEMS) break;
    }
  } catch (error) {
    // Templates are optional: a server without them answers "method not found".
    if (!(error instanceof McpError && error.code === ErrorCode.MethodNotFound)) throw error;
  }
  if (cursor || templates.length > LIST_ITEMS) more = true;
  return { resources: resources.slice(0, LIST_ITEMS), templates: templates.slice(0, LIST_ITEMS), more };
}

async function list(servers: ResourceServer[], ctx: ToolCallContext): Promise<ToolResult> {
  const sections: string[] = [];
  for (const server of servers) {
    try {
      const listing = await server.during(ctx, () => listOf(server, ctx));
      const lines = [`Server ${server.name}:`];
      if (listing.resources.length === 0 && listing.templates.length === 0) lines.push('  (nothing offered)');
      for (const resource of listing.resources) lines.push(`- ${resource.uri} — ${describe(resource)}`);
      if (listing.templates.length > 0) {
        lines.push('  Templates (fill in the {placeholders}, then read the URI):');
        for (const template of listing.templates) lines.push(`- ${template.uriTemplate} — ${describe(template)}`);
      }
      if (listing.more) lines.push(`  (more than ${LIST_ITEMS} offered; only these are listed)`);
      sections.push(lines.join('\n'));
    } catch (error) {
      sections.push(`Server ${server.name}: could not be listed (${errorMessage(error)}).`);
    }
  }
  const source = `MCP servers ${names(servers)} (resource list)`;
  const outside = wrapOutside(source, sections.join('\n\n'));
  return { success: true, output: outside.wrapped, externalSource: source, thirdParty: [outside.shown] };
}

function describe(item: { name: string; title?: string | undefined; description?: string | undefined; mimeType?: string | undefined }): string {
  const label = item.title ?? item.name;
  return `${oneLine(label, 80)}${item.mimeType ? ` (${item.mimeType})` : ''}${item.description ? `: ${oneLine(item.description, 200)}` : ''}`;
}

/** The server for a URI: the one named, the only one, or the one whose list or templates cover it. */
async function resolve(servers: ResourceServer[], named: string | undefined, uri: string, ctx: ToolCallContext): Promise<Result<ResourceServer>> {
  if (named !== undefined) {
    const server = servers.find((candidate) => candidate.name === named);
    return server ? { success: true, value: server } : { success: false, error: `No connected MCP server ${named}.` };
  }
  if (servers.length === 1 && servers[0]) return { success: true, value: servers[0] };
  const matching: ResourceServer[] = [];
  for (const server of servers) {
    try {
      const listing = await server.during(ctx, () => listOf(server, ctx));
      if (listing.resources.some((resource) => resource.uri === uri) || listing.templates.some((template) => matches(template.uriTemplate, uri))) matching.push(server);
    } catch {
      // A server that cannot list is not a candidate.
    }
  }
  if (matching.length === 1 && matching[0]) return { success: true, value: matching[0] };
  if (matching.length > 1) return { success: false, error: `Several MCP servers offer ${uri} (${names(matching)}); say which with server.` };
  return { success: false, error: `No connected MCP server lists ${uri}; say which server should read it (one of ${names(servers)}), or use action "list".` };
}

function matches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

async function read(servers: ResourceServer[], named: string | undefined, uri: string, ctx: ToolCallContext, maxBytes: number): Promise<ToolResult> {
  const resolved = await resolve(servers, named, uri, ctx);
  if (!resolved.success) return fail(resolved.error);
  const server = resolved.value;
  const client = server.client();
  if (!client) return fail(`The MCP server ${server.name} is not connected right now; try again later.`);
  let result: ReadResourceResult;
  try {
    result = await server.during(ctx, () => client.readResource({ uri }, { signal: ctx.signal, timeout: server.timeoutMs }));
  } catch (error) {
    if (error instanceof McpError) return fail(`${server.name} could not read ${uri}: ${errorMessage(error)}. Check the URI with action "list".`);
    return fail(`${server.name} could not be reached: ${errorMessage(error)}`);
  }
  const source = `MCP server ${server.name} (resource ${uri})`;
  const texts: string[] = [];
  const artifacts: Artifact[] = [];
  for (const [index, content] of result.contents.entries()) {
    const size = 'blob' in content && typeof content.blob === 'string' ? Math.floor((content.blob.length * 3) / 4) : Buffer.byteLength('text' in content && typeof content.text === 'string' ? content.text : '', 'utf8');
    if (size > maxBytes) {
      texts.push(`[${content.uri}: ${formatBytes(size)}, over the ${formatBytes(maxBytes)} limit (tools.mcp.max_resource_bytes); not passed on]`);
      continue;
    }
    if ('text' in content && typeof content.text === 'string') {
      texts.push(result.contents.length > 1 ? `[${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}]\n${content.text}` : content.text);
    } else if ('blob' in content && typeof content.blob === 'string') {
      const mimeType = content.mimeType ?? 'application/octet-stream';
      const name = fileName(content.uri, mimeType, index);
      artifacts.push({ type: mimeType.startsWith('image/') ? 'image' : 'file', name, content: Buffer.from(content.blob, 'base64'), mimeType });
      texts.push(`[${content.uri}: binary ${mimeType}, ${formatBytes(size)}, attached as ${name}]`);
    }
  }
  const limit = Math.max(1000, ctx.config.tools.output_chars - WRAPPER_CHARS);
  let text = texts.join('\n\n') || '(empty resource)';
  if (text.length > limit) text = `${text.slice(0, limit)}\n…[resource cut: ${text.length - limit} more characters not shown]`;
  const outside = wrapOutside(source, text);
  return { success: true, output: outside.wrapped, externalSource: source, thirdParty: [outside.shown], ...(artifacts.length > 0 ? { artifacts } : {}) };
}

function fileName(uri: string, mimeType: string, index: number): string {
  const last = uri.split(/[/\\]/).filter(Boolean).at(-1) ?? '';
  const clean = last.replace(/[^a-zA-Z0-9._-]/g, '_').slice(0, 80);
  if (clean !== '' && /\.[a-z0-9]{1,8}$/i.test(clean)) return clean;
  const extension = mimeType.split('/')[1]?.replace(/[^a-z0-9]/g, '') || 'bin';
  return `${clean || `resource-${index + 1}`}.${extension}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
