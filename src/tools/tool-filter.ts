/**
 * Which tools a run is offered: names, aliases, groups (`memory.*`), `*`, and `!name` exclusions. An agent's tool
 * list, a skill's, and the unattended set are filters; a call to a tool the filter leaves out is refused at lookup.
 */
export interface FilteredTool {
  name: string;
  group: string;
  aliases: readonly string[];
  /** What the tool needs to be offered (./permissions.ts); undefined: it declares nothing. */
  permissions?: readonly string[] | undefined;
}

export interface ToolFilter {
  allows(tool: FilteredTool): boolean;
  readonly description: string;
  /** Of permissions a call needs beyond its tool's, the first this filter does not grant, in words; else undefined. */
  missing?(permissions: readonly string[]): string | undefined;
  /** Why `allows` leaves the tool out, in words; undefined when it does not. */
  why?(tool: FilteredTool): string | undefined;
}

export const ALLOW_ALL: ToolFilter = { allows: () => true, description: 'all tools' };

export function createToolFilter(patterns: readonly string[]): ToolFilter {
  const include = patterns.filter((pattern) => !pattern.startsWith('!'));
  const exclude = patterns.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1));
  const description = patterns.length > 0 ? patterns.join(', ') : 'no tools';
  return {
    description,
    allows(tool) {
      if (exclude.some((pattern) => matches(pattern, tool))) return false;
      return include.some((pattern) => matches(pattern, tool));
    },
    why(tool) {
      const excluded = exclude.find((pattern) => matches(pattern, tool));
      if (excluded !== undefined) return `left out by "!${excluded}" in the tool list`;
      return include.some((pattern) => matches(pattern, tool)) ? undefined : `not in the tool list (${description})`;
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
    missing: (permissions) => firstOf(active, (filter) => filter.missing?.(permissions)),
    why: (tool) => firstOf(active, (filter) => (filter.allows(tool) ? undefined : (filter.why?.(tool) ?? `left out by ${filter.description}`))),
  };
}

function firstOf(filters: readonly ToolFilter[], say: (filter: ToolFilter) => string | undefined): string | undefined {
  for (const filter of filters) {
    const said = say(filter);
    if (said !== undefined) return said;
  }
  return undefined;
}

function matches(pattern: string, tool: FilteredTool): boolean {
  if (pattern === '*') return true;
  const group = /^(.+?)(?:\.\*|:\*|_\*)$/.exec(pattern)?.[1];
  if (group !== undefined) return tool.group === group || tool.name.startsWith(`${group}:`) || tool.name.startsWith(`${group}_`);
  return tool.name === pattern || tool.aliases.includes(pattern);
}
