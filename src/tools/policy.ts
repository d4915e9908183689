/** Which tools a run may use: names, aliases, groups (`memory.*`), `*`, and `!name` exclusions. */
export interface ToolPolicy {
  allows(tool: { name: string; group: string; aliases: readonly string[] }): boolean;
  readonly description: string;
}

export const ALLOW_ALL: ToolPolicy = { allows: () => true, description: 'all tools' };

export function createPolicy(patterns: readonly string[]): ToolPolicy {
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

/** Both policies must allow (a job restricted inside an agent restricted inside the daemon). */
export function intersectPolicies(...policies: Array<ToolPolicy | undefined>): ToolPolicy {
  const active = policies.filter((policy): policy is ToolPolicy => policy !== undefined);
  if (active.length === 0) return ALLOW_ALL;
  if (active.length === 1) return active[0] ?? ALLOW_ALL;
  return {
    description: active.map((policy) => policy.description).join(' ∩ '),
    allows: (tool) => active.every((policy) => policy.allows(tool)),
  };
}

function matches(pattern: string, tool: { name: string; group: string; aliases: readonly string[] }): boolean {
  if (pattern === '*') return true;
  const group = /^(.+?)(?:\.\*|:\*|_\*)$/.exec(pattern)?.[1];
  if (group !== undefined) return tool.group === group || tool.name.startsWith(`${group}:`) || tool.name.startsWith(`${group}_`);
  return tool.name === pattern || tool.aliases.includes(pattern);
}
