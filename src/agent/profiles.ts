import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { createPermissionFilter } from '../tools/permissions.js';
import { createToolFilter, intersectFilters, type ToolFilter } from '../tools/tool-filter.js';
import type { CallOrigin } from '../tools/types.js';
import type { TurnInput } from './agent.js';

export interface AgentProfile {
  name: string;
  persona?: string;
  model?: string;
  tools: ToolFilter;
}

/**
 * The agent serving a chat: the first route matching its channel (and chat id, when the route names one),
 * else the agent named `default` when declared, else none (no restriction).
 */
export function resolveAgent(config: Config, origin: Pick<CallOrigin, 'channel' | 'chatId'>): AgentProfile | undefined {
  const route = config.routes.find((candidate) => candidate.channel === origin.channel && (candidate.chat_id === undefined || candidate.chat_id === origin.chatId));
  const name = route?.agent ?? (Object.hasOwn(config.agents, 'default') ? 'default' : undefined);
  return name === undefined ? undefined : agentProfile(config, name);
}

export function agentProfile(config: Config, name: string): AgentProfile | undefined {
  if (!Object.hasOwn(config.agents, name)) return undefined;
  const declared = config.agents[name];
  if (!declared) return undefined;
  return {
    name,
    ...(declared.persona !== undefined ? { persona: declared.persona } : {}),
    ...(declared.model !== undefined ? { model: declared.model } : {}),
    // A grant list narrows the tool list: a tool is offered when both allow it.
    tools: declared.permissions === undefined ? createToolFilter(declared.tools) : intersectFilters(createToolFilter(declared.tools), createPermissionFilter(declared.permissions, name)),
  };
}

/**
 * The turn with its agent applied: its tools intersect the run's own filter; explicit overrides win. The agent is
 * the one routed for `route` (a job's `scheduler` route), else for the turn's origin.
 */
export function applyAgent<T extends Pick<TurnInput, 'origin' | 'filter' | 'persona' | 'model'>>(config: Config, input: T, route?: Pick<CallOrigin, 'channel' | 'chatId'>): T {
  const profile = resolveAgent(config, route ?? input.origin);
  if (!profile) return input;
  return {
    ...input,
    filter: intersectFilters(profile.tools, input.filter),
    ...(input.persona === undefined && profile.persona !== undefined ? { persona: profile.persona } : {}),
    ...(input.model === undefined && profile.model !== undefined ? { model: profile.model } : {}),
  };
}

/** A route naming an agent that is not declared is an operator mistake, reported at start. */
export function checkRoutes(config: Config): void {
  config.routes.forEach((route, index) => {
    if (!Object.hasOwn(config.agents, route.agent)) {
      const known = Object.keys(config.agents);
      throw new ConfigError(`routes.${index}.agent`, `no agent named "${route.agent}" in agents (declared: ${known.length > 0 ? known.join(', ') : 'none'})`);
    }
  });
}
