import { currentPerson } from '../lib/person-scope.js';

/**
 * Between a conversation id and a person's name. No conversation id has it (WORKSPACE_ID in workspace.ts) and no
 * person's name has it, so a person's workspace never collides with a conversation's or with another person's.
 */
const SEPARATOR = '@';

/**
 * The workspace key (its folder under `data_dir/workspaces/`, its sandbox container) of a run in `conversationId`, as
 * the person in scope: the one rule, decided where a turn, an upload or a skill run starts and read by every workspace
 * user from there (tools through `ctx.workspaceId`). In a household everyone but the owner has their own in every
 * conversation, `<conversation>@<name>` (a guest's is `@guest`, which no tool of theirs reaches); the owner keeps the
 * conversation's own, which is where everything from before the household is (as the memory and the jobs from then
 * are the owner's). Whether a chat is direct plays no part: a Matrix room of two can become a group and back, and the
 * files in it must not change hands when it does. Outside a household no person is in scope: the conversation id.
 */
export function workspaceFor(conversationId: string): string {
  const person = currentPerson();
  return person && person.role !== 'owner' ? `${conversationId}${SEPARATOR}${person.name}` : conversationId;
}
