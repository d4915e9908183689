/**
 * The one result union of the code base, spelled like the seed's ToolResult (`success`): a value, or an error —
 * by default a message written for whoever reads it (the model, the person, the operator); `E` when the caller
 * needs more than words to act on (a ready tool result, a flag).
 */
export type Result<T = undefined, E = string> = { success: true; value: T } | { success: false; error: E };

export function succeed<T>(value: T): { success: true; value: T } {
  return { success: true, value };
}

export function failure<E = string>(error: E): { success: false; error: E } {
  return { success: false, error };
}
