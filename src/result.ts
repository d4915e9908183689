/** The one result union for operations that can fail in a way the caller reports: `success`, then `value` or `error`. */
export type Result<T> = { success: true; value: T } | { success: false; error: string };
