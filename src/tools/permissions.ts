/**
 * Named permissions (seed 003's tool access control). A tool declares what it needs (`email.read`, `files.write`);
 * an agent with `permissions` in its profile is offered a tool only when every permission the tool needs is granted
 * to it, so a permission several tools share is granted once. Some calls need more than their tool (`email` with
 * action "send" needs `email.send`): the gate checks those per call.
 *
 * A tool that declares nothing needs the permission `tool:<its name>`, so a grant list never lets an undeclared tool
 * through by accident; `*` grants everything, `email.*` every permission under `email.`, `!files.write` takes one
 * back. An agent without `permissions` is governed by its tool list alone, as before.
 */
import type { ToolFilter } from './tool-filter.js';

/** What a registered tool needs in order to be offered at all. */
export function neededPermissions(tool: { name: string; permissions?: readonly string[] | undefined }): readonly string[] {
  return tool.permissions ?? [`tool:${tool.name}`];
}

/**
 * The filter for an agent's grants: `allows` keeps the tools whose permissions are all granted, `missing` names the
 * first permission of a call that is not, and `why` says it in words for `familiar tools list --agent`.
 */
export function createPermissionFilter(patterns: readonly string[], agent: string | { who: string; key: string }): ToolFilter {
  const grant = grants(patterns);
  // An agent's grants, or a person's in a household (people.<name>.tools).
  const holder = typeof agent === 'string' ? { who: `agent "${agent}"`, key: `agents.${agent}.permissions` } : agent;
  const missing = (permissions: readonly string[]): string | undefined => {
    const absent = permissions.find((permission) => !grant(permission));
    return absent === undefined ? undefined : `the permission "${absent}", which ${holder.who} is not granted (${holder.key})`;
  };
  return {
    description: `permissions ${patterns.length > 0 ? patterns.join(', ') : '(none)'}`,
    allows: (tool) => neededPermissions(tool).every(grant),
    missing,
    why: (tool) => {
      const absent = missing(neededPermissions(tool));
      return absent === undefined ? undefined : `needs ${absent}`;
    },
  };
}

function grants(patterns: readonly string[]): (permission: string) => boolean {
  const include = patterns.filter((pattern) => !pattern.startsWith('!'));
  const exclude = patterns.filter((pattern) => pattern.startsWith('!')).map((pattern) => pattern.slice(1));
  return (permission) => !exclude.some((pattern) => covers(pattern, permission)) && include.some((pattern) => covers(pattern, permission));
}

function covers(pattern: string, permission: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return permission.startsWith(pattern.slice(0, -1));
  return pattern === permission;
}
