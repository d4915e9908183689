/**
 * The one result union of the code base, spelled like the seed's ToolResult (`success`): a value, or an error
 * message written for whoever reads it (the model, the person, the operator).
 */
export type Result<T = undefined> = { success: true; value: T } | { success: false; error: string };

export function succeed<T>(value: T): { success: true; value: T } {
  return { success: true, value };
}

export function failure(error: string): { success: false; error: string } {
  return { success: false, error };
}
