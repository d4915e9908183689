/**
 * What a tool call can do beyond answering the model, declared by the tool (`NativeTool.effects`). The trust
 * policy reads these in a turn that holds outside content: a call that can carry data out, or change what later
 * prompts and unattended runs see, is allowed only when its inputs came from the person or from the outside content
 * itself — otherwise the person is asked (or, unattended, it is refused).
 */
export type Effect =
  /**
   * Data may leave the machine. `url`: the exact address a GET would fetch (query included); `query`: a search
   * query; `to`: mail recipients; `carriesData`: a body or headers go along. Without any of these the call is a way
   * out whose destination cannot be checked (an MCP call, a sandbox command with network, a custom tool).
   */
  | { kind: 'egress'; url?: string; method?: string; query?: string; to?: readonly string[]; carriesData?: boolean; what?: string }
  /**
   * Something outlives the turn. `memory`: a file in the memory folder (`path`); `job`: a scheduled job (`runs`:
   * an agent job that runs a prompt unattended, not a reminder that only sends text to the person); `skill`: a
   * skill's instructions, status or schedule.
   */
  | { kind: 'persist'; target: 'memory' | 'job' | 'skill'; path?: string; runs?: boolean; what?: string }
  /** New code or instructions come in (a skill from a hub). */
  | { kind: 'install'; what?: string };

/** A tool that declares nothing is assumed able to send data anywhere (custom tools, MCP tools). */
export const UNKNOWN_EFFECTS: readonly Effect[] = [{ kind: 'egress' }];
