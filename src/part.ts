/**
 * The lifecycle contract between the composition root and the daemon's parts. A part is made by a factory that
 * takes exactly the dependencies it uses and returns what it made; the root registers the tools and chat commands,
 * starts the parts in order and stops them in reverse. Nothing here knows any part.
 */
import { AppError } from './errors.js';
import type { AnyTool } from './tools/types.js';

export interface DoctorLine {
  status: 'ok' | 'fail' | 'skip' | 'warn';
  label: string;
  detail?: string;
  fix?: string;
}

export interface ChatCommandInput {
  channel: string;
  chatId: string;
  userId: string;
  /** Everything after the command name. */
  args: string;
  /** The chat's active conversation. */
  conversationId: string;
}

/**
 * What a command asks the chat to do instead of replying: start an agent turn with this text, as if the person had
 * sent it (an MCP prompt). `externalSources` names where the text came from when the person did not write it: the
 * turn starts tainted by it (approvals then say so).
 */
export interface ChatCommandTurn {
  turn: {
    text: string;
    externalSources?: readonly string[];
    images?: ReadonlyArray<{ mimeType: string; data: Buffer }>;
  };
}

/** A chat command (`/jobs`, `/remind …`) answered without an LLM call, or one that starts a turn. */
export interface ChatCommand {
  description: string;
  /** Returns the reply text (an empty string sends nothing), or a turn for the chat to run. */
  run(input: ChatCommandInput): Promise<string | ChatCommandTurn>;
}

export type ChatCommands = ReadonlyMap<string, ChatCommand>;

export interface Part {
  name: string;
  /** Registered by the root before anything starts. */
  tools?: readonly AnyTool[];
  /** Chat commands this part answers; the first part to claim a name keeps it. */
  commands?: ChatCommands;
  /**
   * Side effects begin here (listening, polling, timers, connections). Throws when the part cannot run; throws
   * StartRetrying when it cannot run yet but keeps trying by itself. `stop` may come while it runs (a stop signal
   * during start-up): it should then give up soon.
   */
  start?(): Promise<void>;
  /** Stop taking new work; in-flight turns are drained by the root afterwards. */
  stop?(): Promise<void>;
  /** Release everything once in-flight turns are done or cut. */
  close?(): Promise<void>;
  /**
   * Pick up changes made on disk since start (the custom tools' folder) without a restart: what a reload of the
   * running daemon (SIGHUP, a file watch) calls. Contract: never throws; problems are logged.
   */
  reload?(): Promise<void>;
  /** `familiar doctor` lines: each says what is wrong and how to fix it. */
  doctor?(): Promise<DoctorLine[]>;
}

/**
 * What a part's start throws when it cannot run now but keeps trying by itself (a chat server unreachable at boot, as
 * when the network comes up after the daemon): the daemon runs without it, lists it as failed with this reason, and
 * takes it off the list when `started` resolves. `started` rejects when the part gives up or is stopped.
 */
export class StartRetrying extends AppError {
  // Private, behind a getter: the logger's error serializer would print the promise as `{}`.
  readonly #started: Promise<void>;
  constructor(failure: AppError, started: Promise<void>) {
    // The failure's own cause, not the failure: the logged message would say the reason twice.
    super(failure.code, `${failure.message}; it keeps trying in the background`, { cause: failure.cause });
    this.#started = started;
    // Whoever started the part may not be listening (a test, a one-shot command): giving up is logged by the part.
    started.catch(() => undefined);
  }

  get started(): Promise<void> {
    return this.#started;
  }
}
