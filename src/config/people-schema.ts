import { z } from 'zod/v3';
import { isValidTimeZone } from './timezone.js';

/** Part of the configuration contract (schema.ts): `people:`, a household on one daemon (docs/household.md). */

const userId = () => z.union([z.string(), z.number()]).transform(String);

/** A grant (src/tools/permissions.ts): a name of letters, digits, `.`, `:`, `_` or `-`, a prefix ending in `*`, or `*`. */
export const permissionGrant = () => z.string().regex(/^!?(?:\*|[a-z0-9][a-z0-9_.:-]*(?:[.:]\*)?)$/i, 'a permission (email.send), a prefix with * (email.*), * or !name');

/** A person's name is their folder's (`memory_dir/people/<name>/`): lower case, so it means one folder everywhere. */
const personName = () => z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a name of lower-case letters, digits, _ or - (it is their folder\'s name)');

const personSchema = () => z.strictObject({
  role: z.enum(['owner', 'member', 'child']).default('member'),
  /** Sender ids per channel (`telegram: [123]`, `discord: ["456"]`); `console: true` marks the console's login (the owner's). */
  ids: z.record(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'a channel name'), z.union([z.literal(true), z.array(userId())])).default({}),
  /** Their dates and times; default: the daemon's `timezone`. */
  timezone: z.string().refine(isValidTimeZone, { message: 'not an IANA time zone (e.g. Europe/Paris)' }).optional(),
  budget: z.strictObject({ daily_tokens: z.number().int().min(0).optional() }).default({}),
  /** The tools they are offered, as named permissions (tools/permissions.ts); a child without it gets the safe default. */
  tools: z.array(permissionGrant()).optional(),
});

export type PersonConfig = z.output<ReturnType<typeof personSchema>>;

/**
 * `people:`: exactly one owner; an id on a channel belongs to one person; the console and the terminal are the
 * owner's. Absent (or empty): one person, as before.
 */
export const peopleSchema = () => z.record(personName(), personSchema()).superRefine((people, context) => {
  const names = Object.keys(people);
  if (names.length === 0) return;
  if (names.includes('guest')) context.addIssue({ code: 'custom', path: ['guest'], message: '"guest" is the name of senders who are in no person\'s ids; choose another name' });
  const owners = names.filter((name) => people[name]?.role === 'owner');
  if (owners.length === 0) context.addIssue({ code: 'custom', path: [], message: `no person has role: owner (${names.join(', ')}); exactly one must` });
  for (const extra of owners.slice(1)) {
    context.addIssue({ code: 'custom', path: [extra, 'role'], message: `${owners[0] ?? ''} is already the owner; a household has exactly one` });
  }
  const holder = new Map<string, string>();
  for (const name of names) {
    for (const [channel, ids] of Object.entries(people[name]?.ids ?? {})) {
      if (ids === true) {
        if (channel !== 'console') context.addIssue({ code: 'custom', path: [name, 'ids', channel], message: 'a list of ids (only console takes true)' });
        else if (people[name]?.role !== 'owner') context.addIssue({ code: 'custom', path: [name, 'ids', channel], message: 'the console is the owner\'s (its login link is printed on the owner\'s terminal)' });
        continue;
      }
      if (channel === 'console' || channel === 'cli') {
        context.addIssue({ code: 'custom', path: [name, 'ids', channel], message: `the ${channel} is the owner's; give the owner ${channel === 'console' ? 'console: true' : 'nothing here'}` });
        continue;
      }
      for (const id of ids) {
        const key = `${channel}\u0000${id}`;
        const other = holder.get(key);
        if (other !== undefined) context.addIssue({ code: 'custom', path: [name, 'ids', channel], message: `${channel} id ${id} is also ${other}'s (people.${other}.ids.${channel}); an id belongs to one person` });
        else holder.set(key, name);
      }
    }
  }
});
