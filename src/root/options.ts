import type { LoadedConfig } from '../config/load.js';
import type { LogRing } from '../lib/log-ring.js';
import type { LlmClient } from '../llm/types.js';
import type { Logger } from '../log.js';
import type { Resolver } from '../net/fetch-guarded.js';
import type { Part } from '../part.js';

/** `daemon`: `familiar start` (channels, the HTTP endpoint, the sandbox probed). `command`: a one-shot command. */
export type DaemonMode = 'daemon' | 'command';

export interface DaemonOptions {
  loaded: LoadedConfig;
  log: Logger;
  mode: DaemonMode;
  /** Tests inject a client with an observable sleep; otherwise built from `llm`. */
  llm?: LlmClient;
  now?: () => Date;
  /** Tests steer the HTTP tool's name resolution (the SSRF guard). */
  resolve?: Resolver;
  /** Tests shorten the first wait before a chat platform that could not reach its server tries again (5 s). */
  channelRetryMs?: number;
  /** More parts, started after the others (an embedder's own, or a test's). */
  parts?: readonly Part[];
  /**
   * Reads the config again as the command line first did (`familiar start`): with it, the daemon reloads on SIGHUP
   * (`reload`) and when config.yaml or `.env` changes.
   */
  load?: () => LoadedConfig;
  /** The logger's in-memory ring of recent lines (`familiar start` makes one): the console's live log. */
  logRing?: LogRing;
}
