/**
 * Which tools a run is offered: names, aliases, groups (`memory.*`), `*`, and `!name` exclusions. An agent's tool
 * list, a skill's, and the unattended set are filters; a call to a tool the filter leaves out is refused at lookup.
 */
export interface ToolFilter {
  allows(tool: { name: string; group: string; aliases: readonly string[] }): boolean;
  readonly description: string;
}

export const ALLOW_ALL: ToolFilter = { allows: () => true, description: 'all tools' };

export function createToolFilter(patterns: readonly string[]): ToolFilter {
  const include = patterns.filter((pattern) => !pattern.startsWith('!'));
  const exclude = patterns.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1));
  return {
    description: patterns.length > 0 ? patterns.join(', ') : 'no tools',
    allows(tool) {
      if (exclude.some((pattern) => matches(pattern, tool))) return false;
      return include.some((pattern) => matches(pattern, tool));
    },
  };
}

/** Every filter must allow (a job restricted inside an agent restricted inside the daemon). */
export function intersectFilters(...filters: Array<ToolFilter | undefined>): ToolFilter {
  const active = filters.filter((filter): filter is ToolFilter => filter !== undefined);
  if (active.length === 0) return ALLOW_ALL;
  if (active.length === 1) return active[0] ?? ALLOW_ALL;
  return {
    description: active.map((filter) => filter.description).join(' ∩ '),
    allows: (tool) => active.every((filter) => filter.allows(tool)),
  };
}

function matches(pattern: string, tool: { name: string; group: string; aliases: readonly string[] }): boolean {
  if (pattern === '*') return true;
  const group = /^(.+?)(?:\.\*|:\*|_\*)$/.exec(pattern)?.[1];
  if (group !== undefined) return tool.group === group || tool.name.startsWith(`${group}:`) || tool.name.startsWith(`${group}_`);
  return tool.name === pattern || tool.aliases.includes(pattern);
}
