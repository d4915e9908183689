import type { Approvals } from '../approval/approvals.js';
import type { Config } from '../config/schema.js';
import type { ActingPerson } from '../lib/person-scope.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../tools/call.js';
import type { CallOrigin } from '../tools/types.js';

/** How the gate reaches the owner and the member who asked (the channel hub, wired by the root). */
export interface OwnerReach {
  /** A direct chat with a user on a running platform (known, or opened through its client); undefined when none. */
  directChat(channel: string, userId: string): Promise<string | undefined>;
  /** The chat platforms in the order a person is looked for on them (the platform table's, channels/platforms.ts). */
  platforms: readonly string[];
  /** A line to a chat. Contract: never throws. */
  tell(origin: CallOrigin, text: string): Promise<void>;
}

export interface OwnerAskDeps {
  config: Config;
  approvals: Pick<Approvals, 'ask' | 'handlerForChannel' | 'handlerForConsole'>;
  reach?: OwnerReach | undefined;
}

/**
 * A member's dangerous call, asked of the owner (docs/household.md, Approvals): in a direct chat with the owner on the
 * platform where one can be had — the asking chat's platform first, then the others in the platform table's order —
 * else in the asking chat itself when the owner has an id on its platform; the console lists every question, so the
 * owner can always answer there (and only there when no chat reaches them). Only the owner's answer counts: a chat's
 * prompter takes a press from the id it was given (the owner's), and the console is the owner's. The member is told
 * where the owner was asked. Contract: never throws; no place at all is a denial saying why.
 */
export async function askOwner(deps: OwnerAskDeps, request: ApprovalRequest, person: ActingPerson): Promise<ApprovalDecision> {
  const owner = Object.entries(deps.config.people ?? {}).find(([, entry]) => entry.role === 'owner');
  const place = owner ? await ownerPlace(deps, owner[1].ids, request.origin) : undefined;
  const consoleOn = deps.config.http.listen !== undefined && deps.config.http.console;
  const inChat = place ? deps.approvals.handlerForChannel(place.origin.channel) : undefined;
  const inConsole = consoleOn ? deps.approvals.handlerForConsole() : undefined;
  // A chat that cannot show the question (a Telegram owner who never started the bot: 403) leaves the console.
  const handler: ApprovalHandler | undefined = inChat && inConsole
    ? async (asked) => inChat(asked).catch(() => inConsole({ ...asked, origin: request.origin }))
    : inChat ?? inConsole;
  if (!owner || !handler) {
    return { approved: false, reason: `${request.tool} needs the owner's yes, and the owner cannot be asked: they have no id on a running chat platform and the console is off; the owner can link one (familiar people link OWNER --discord ID) or allow it in approval.auto_approve` };
  }
  const where = place ? `${place.where}${consoleOn ? ' and in the console' : ''}` : 'in the console';
  await deps.reach?.tell(request.origin, `⏳ ${request.tool} needs the owner's yes: I asked ${owner[0]} ${where}.`);
  const details = [`Asked by ${person.name} (${person.role}); only the owner can allow this.`, ...(request.details ?? [])];
  return deps.approvals.ask(handler, { ...request, ...(place ? { origin: place.origin } : {}), details });
}

/** Where the owner is asked on a chat, and how the member is told of it; undefined when no chat reaches them. */
async function ownerPlace(deps: OwnerAskDeps, ids: Readonly<Record<string, unknown>>, origin: CallOrigin): Promise<{ origin: CallOrigin; where: string } | undefined> {
  const idOn = (channel: string): string | undefined => firstId(ids, channel);
  const order = [origin.channel, ...(deps.reach?.platforms ?? []).filter((name) => name !== origin.channel)];
  const direct = await directChatWith(deps.reach, ids, order, (channel) => deps.approvals.handlerForChannel(channel) !== undefined);
  if (direct) return { origin: direct, where: `in a direct chat on ${direct.channel}` };
  // No direct chat anywhere: the asking chat itself, when the owner is on its platform (only their press counts there).
  const here = idOn(origin.channel);
  if (here !== undefined && deps.approvals.handlerForChannel(origin.channel)) return { origin: { ...origin, userId: here }, where: `here, in this chat` };
  return undefined;
}

/**
 * A direct chat with a person (their `ids` from `people:`): on the first platform in `order` that `usable` accepts where
 * they have an id and the running channel has or opens one (docs/household.md). Undefined when none can be had.
 */
export async function directChatWith(reach: Pick<OwnerReach, 'directChat'> | undefined, ids: Readonly<Record<string, unknown>>, order: readonly string[], usable: (channel: string) => boolean = () => true): Promise<CallOrigin | undefined> {
  for (const channel of order) {
    const userId = firstId(ids, channel);
    if (userId === undefined || !usable(channel)) continue;
    const chatId = await reach?.directChat(channel, userId);
    if (chatId !== undefined) return { channel, chatId, userId };
  }
  return undefined;
}

function firstId(ids: Readonly<Record<string, unknown>>, channel: string): string | undefined {
  const list = Object.hasOwn(ids, channel) ? ids[channel] : undefined;
  return Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
}
