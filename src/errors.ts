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

/** A bad or missing config value. The CLI exits with status 2 and prints `message` alone. */
export class ConfigError extends AppError {
  readonly keyPath: string;
  constructor(keyPath: string, reason: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', `config: ${keyPath || '(root)'}: ${reason}`, options);
    this.keyPath = keyPath;
  }
}

/** The LLM provider failed after retries and fallbacks. */
export class LlmError extends AppError {
  readonly status: number | undefined;
  constructor(message: string, status: number | undefined, options?: { cause?: unknown }) {
    super('LLM_FAILED', message, options);
    this.status = status;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
