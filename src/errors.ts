/**
 * Errors the operator must act on. What the model can act on is never thrown: it is a failed ToolResult.
 * Every AppError carries a stable `code` and keeps the original error as `cause`.
 */
export class AppError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One thing wrong in the config: the key path (empty for the file as a whole) and what is wrong with it. */
export interface ConfigProblem {
  keyPath: string;
  reason: string;
}

/**
 * A bad or missing config value — or several, found together. The CLI exits with status 2 and prints `message`
 * alone: one line per problem, `config: <key path>: <reason>`.
 */
export class ConfigError extends AppError {
  readonly keyPath: string;
  readonly problems: readonly ConfigProblem[];
  constructor(keyPath: string, reason: string, options?: { cause?: unknown; more?: readonly ConfigProblem[] }) {
    const problems = [{ keyPath, reason }, ...(options?.more ?? [])];
    super('CONFIG_INVALID', problems.map(formatProblem).join('\n'), options);
    this.keyPath = keyPath;
    this.problems = problems;
  }

  /** All the problems in one error (at least one). */
  static of(problems: readonly ConfigProblem[], options?: { cause?: unknown }): ConfigError {
    const [first, ...more] = problems;
    return new ConfigError(first?.keyPath ?? '', first?.reason ?? 'invalid', { ...options, more });
  }
}

function formatProblem(problem: ConfigProblem): string {
  return problem.keyPath ? `config: ${problem.keyPath}: ${problem.reason}` : `config: ${problem.reason}`;
}

/**
 * The LLM provider failed after retries and fallbacks. `transient` says whether waiting can help (rate limit,
 * server error, timeout); otherwise the message says what to check (the key, the URL, the model).
 */
export class LlmError extends AppError {
  readonly status: number | undefined;
  readonly transient: boolean;
  constructor(message: string, status: number | undefined, options?: { cause?: unknown; transient?: boolean }) {
    super('LLM_FAILED', message, options);
    this.status = status;
    this.transient = options?.transient ?? false;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The file changed on disk between the caller's read and its write: read again and redo the change. */
export class StaleWriteError extends Error {
  readonly path: string;
  constructor(path: string) {
    super(`${path} changed on disk since it was read (probably edited by hand); read it again and redo the change`);
    this.name = 'StaleWriteError';
    this.path = path;
  }
}
