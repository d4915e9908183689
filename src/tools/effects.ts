/**
 * What a tool call can do beyond answering the model, declared by the tool (`NativeTool.effects`). The gate
 * (src/gate/) reads these in a turn that holds outside content: a call that can carry data out, or change what later
 * prompts and unattended runs see, is allowed only when its inputs came from the person or from third parties' words
 * — and then charged to the leak budget — otherwise the person is asked (or, unattended, it is refused).
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
  | { kind: 'install'; what?: string }
  /**
   * Files the workspace already had may be changed or deleted. In a tainted turn they are read-only to the call
   * (src/sandbox/guest.ts) unless `path` is a file the person named, or the call is `explicit` (it asked to change
   * existing files: `modify_existing: true`) and the person says yes.
   */
  | { kind: 'modify'; target: 'workspace'; path?: string; explicit: boolean; what?: string };

/**
 * What one tool result's third-party text vouches for: the whole addresses in it (normalised as a request would
 * send them), less any the call's own arguments held (an echo is the model's words coming back), and the text
 * itself (what a later search may quote). Made by the gate (`CallGate.vouched`) and kept with the message.
 */
export interface Vouched {
  urls: readonly string[];
  text: string;
}

/** Where the texts of a conversation came from, read on demand (only a tainted call that sends something needs them). */
export interface Provenance {
  /** What the person wrote: their messages in the conversation's window (not a tainted job's prompt). */
  personTexts(): readonly string[];
  /** What third parties' words read so far vouch for: in this turn and in the window. */
  vouched(): readonly Vouched[];
}

/** The gate's answer for one call's effects in a tainted turn (see src/gate/provenance.ts). */
export interface ProvenanceVerdict {
  /** The person must approve the call (unattended: it is refused). */
  ask: boolean;
  /** For the approval question and the refusal: what is in play and where the call's inputs came from. */
  lines: string[];
  /**
   * The information, in bits, that choosing this call's destination or query among those allowed could carry: what
   * the leak budget is charged when the call goes ahead unasked (0 when nothing was chosen from a set).
   */
  bits: number;
  /**
   * The call may change the workspace's existing files (it is no guest, src/sandbox/guest.ts): it declares `modify`
   * effects only, each on a file the person named or `explicit` (then only once the person says yes).
   */
  owner?: boolean;
}

/** A tool that declares nothing is assumed able to send data anywhere (custom tools, MCP tools). */
export const UNKNOWN_EFFECTS: readonly Effect[] = [{ kind: 'egress' }];
