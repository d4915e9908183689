// Its own small module: the sandbox part's doctor reads it without loading the workspaces' code (workspace.ts), which
// a daemon without tools.sandbox never needs.

/** The uid/gid the sandbox runs as, when `tools.sandbox.user` is numeric ("1000" or "1000:1000"). */
export interface SandboxOwner {
  uid: number;
  gid: number;
}

export function parseSandboxUser(user: string): SandboxOwner | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(user.trim());
  if (!match) return undefined;
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}
