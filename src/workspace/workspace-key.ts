import { currentPerson } from '../lib/person-scope.js';

/**
 * Between a conversation id and a person's name. No conversation id has it (WORKSPACE_ID in workspace.ts) and no
 * person's name has it, so a person's workspace never collides with a conversation's or with another person's.
 */
const SEPARATOR = '@';

/**
 * The workspace key (its folder under `data_dir/workspaces/`, its sandbox container) of a run in `conversationId`: the
 * one rule, decided where a turn, an upload or a skill run starts and read by every workspace user from there (tools
 * through `ctx.workspaceId`). In a household, a conversation several people write in (`shared`: a group chat, a skill
 * run from one) has a workspace per person, `<conversation>@<name>` (a guest's is `@guest`, which no tool of theirs
 * reaches). A conversation one person writes in (a direct chat, the terminal, the console, a job, the heartbeat) keeps
 * its id as the key, so its files from before the household stay its own. Outside a household no person is in scope
 * and the key is always the conversation id.
 */
export function workspaceFor(conversationId: string, shared: boolean): string {
  const person = shared ? currentPerson() : undefined;
  return person ? `${conversationId}${SEPARATOR}${person.name}` : conversationId;
}

/** A person's own workspace in a shared conversation: a run started from it (a skill) keeps to that person's. */
export function isPersonal(workspaceId: string): boolean {
  return workspaceId.includes(SEPARATOR);
}
