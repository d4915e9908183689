import type { AnyTool } from './types.js';

/** What the OpenAI API accepts as a function name. */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The group filter patterns such as `memory.*` match: the tool's own, else its name up to the first `_`, `:` or `.`. */
export function toolGroup(tool: Pick<AnyTool, 'name' | 'group'>): string {
  return tool.group ?? /^[^_:.]+/.exec(tool.name)?.[0] ?? tool.name;
}

/** A canonical name such as `mcp:github:search` as the model can call it. */
export function functionSafeName(name: string): string {
  return name.replace(/:/g, '__').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}
