import { wrapExternal, wrapOutside } from '../tools/external.js';
import type { Artifact, JsonSchema, ToolResult } from '../tools/types.js';

/** An MCP input schema as an LLM and ajv accept it: no `$schema` (many providers reject it), always an object. */
export function cleanInputSchema(schema: unknown): JsonSchema {
  const source = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (schema as Record<string, unknown>) : {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) if (key !== '$schema') out[key] = value;
  if (out.type === undefined) out.type = 'object';
  if (out.type === 'object' && out.properties === undefined) out.properties = {};
  return out;
}

/** Room for the wrapper and notes inside `tools.output_chars`. */
const WRAPPER_CHARS = 600;

interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

/**
 * A `tools/call` result as a ToolResult: outside content, wrapped; `isError` becomes a failure the model reads. The
 * text is cut to fit `outputChars` inside the wrapper, so the registry's own cap never cuts off its end marker.
 */
export function toToolResult(canonical: string, source: string, result: { [key: string]: unknown }, outputChars = 16_000): ToolResult {
  const parts: string[] = [];
  const artifacts: Artifact[] = [];
  const content = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  content.forEach((item, index) => {
    if (item.type === 'text' && typeof item.text === 'string') parts.push(item.text);
    else if ((item.type === 'image' || item.type === 'audio') && typeof item.data === 'string') {
      const extension = (item.mimeType ?? '').split('/')[1]?.replace(/[^a-z0-9]/g, '') || 'bin';
      const name = `${canonical.replace(/[^a-zA-Z0-9_-]/g, '_')}-${index + 1}.${extension}`;
      artifacts.push({ type: item.type === 'image' ? 'image' : 'file', name, content: Buffer.from(item.data, 'base64'), ...(item.mimeType ? { mimeType: item.mimeType } : {}) });
      parts.push(`[${item.type} attached: ${name}]`);
    } else if (item.type === 'resource' && item.resource) {
      parts.push(typeof item.resource.text === 'string' ? item.resource.text : `[resource ${item.resource.uri ?? ''} (binary, not shown)]`);
    } else if (item.type === 'resource_link') {
      parts.push(`[link: ${item.name ?? ''} ${item.uri ?? ''}]`);
    }
  });
  // Servers on the 2024 protocol may answer with a bare `toolResult`.
  const structured = result.structuredContent ?? result.toolResult;
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  const limit = Math.max(1000, outputChars - WRAPPER_CHARS);
  let text = parts.join('\n');
  if (text.length > limit) text = `${text.slice(0, limit)}\n…[result cut: ${text.length - limit} more characters not shown]`;
  if (result.isError === true) {
    return { success: false, output: `${canonical} reported an error: ${wrapExternal(source, text || '(no details)')}`, externalSource: source };
  }
  // The server's answer is its words; an echo of the call's arguments in it vouches for nothing (src/gate/addresses.ts).
  const outside = wrapOutside(source, text || '(empty result)');
  return { success: true, output: outside.wrapped, externalSource: source, thirdParty: [outside.shown], ...(artifacts.length > 0 ? { artifacts } : {}) };
}
