import { OWNER_CHANNELS } from '../lib/owner.js';
import { withPerson, type ActingPerson } from '../lib/person-scope.js';
import type { PersonConfig } from './people-schema.js';
import type { Config } from './schema.js';


/**
 * A child without `tools` gets these (named permissions, tools/permissions.ts): their own memory, notes, tasks and
 * reminders, web search and reading a page. No mail, no sandbox or files, no HTTP requests, no jobs or skills.
 */
export const CHILD_DEFAULT_TOOLS: readonly string[] = ['memory.read', 'memory.write', 'notes.*', 'tasks.*', 'reminders.write', 'web.search', 'web.read'];

/** A guest (allowed or paired, in no person's ids): web search and pages only, no memory of anyone's. */
export const GUEST_TOOLS: readonly string[] = ['web.search', 'web.read'];

export const GUEST: ActingPerson = { name: 'guest', role: 'guest', folder: undefined };

interface Directory {
  source: Config['people'];
  byName: Map<string, ActingPerson>;
  /** `channel \0 sender id` → person. */
  bySender: Map<string, ActingPerson>;
  owner: ActingPerson | undefined;
}

/**
 * Who is who in a household, from `people:` (docs/household.md). Identity comes only from the channel and the
 * sender's id the platform reports (never from what a message says): `forSender` is one Map lookup. Without
 * `people:` there is no household and nothing here is consulted on the turn path. Reads the config object it was
 * given (the live holder): a reload that changes `people` calls `refresh()`.
 */
export class People {
  private readonly config: Pick<Config, 'people'>;
  private directory: Directory;

  constructor(config: Pick<Config, 'people'>) {
    this.config = config;
    this.directory = build(config.people);
  }

  /** Rebuilds the lookups from the config (a reload changed `people`). */
  refresh(): void {
    this.directory = build(this.config.people);
  }

  private get current(): Directory {
    if (this.directory.source !== this.config.people) this.refresh();
    return this.directory;
  }

  /** True when `people:` names anyone: memory, jobs, budgets and approvals are per person. */
  get household(): boolean {
    return this.current.owner !== undefined;
  }

  /** The owner; undefined outside a household. */
  owner(): ActingPerson | undefined {
    return this.current.owner;
  }

  get(name: string): ActingPerson | undefined {
    return this.current.byName.get(name);
  }

  /**
   * Whom a job's or skill's run acts as, by the name it recorded: that person, or a guest when they are no longer in
   * `people:` (their things then reach nobody's memory and only a guest's tools).
   */
  named(name: string): ActingPerson {
    return this.current.byName.get(name) ?? GUEST;
  }

  /** The person a sender is: the owner on the terminal and the console, a listed person by id, else a guest. */
  forSender(channel: string, userId: string | undefined): ActingPerson {
    const directory = this.current;
    if (OWNER_CHANNELS.has(channel)) return directory.owner ?? GUEST;
    if (userId === undefined) return GUEST;
    return directory.bySender.get(`${channel}\u0000${userId}`) ?? GUEST;
  }

  /** Every person's ids on a channel: they are let in without being repeated in allowed_users. */
  idsOn(channel: string): string[] {
    return peopleIdsOn(this.config, channel);
  }

  /**
   * Runs the daemon's own work for the household as the owner (the heartbeat's probes, the task files' watcher): it
   * then reads the owner's folder, as a single person's daemon reads the whole. Outside a household: as is.
   */
  asOwner<T>(run: () => T): T {
    const owner = this.owner();
    return owner ? withPerson(owner, run) : run();
  }

  /** The people as configured, in config order. */
  list(): Array<{ name: string; config: PersonConfig }> {
    return Object.entries(this.config.people ?? {}).map(([name, config]) => ({ name, config }));
  }

  /** The tools a person is offered as grants: a child's list or the safe default, a guest's; undefined: every tool. */
  grantsOf(person: ActingPerson): readonly string[] | undefined {
    if (person.role === 'guest') return GUEST_TOOLS;
    const configured = this.config.people?.[person.name]?.tools;
    if (configured !== undefined) return configured;
    return person.role === 'child' ? CHILD_DEFAULT_TOOLS : undefined;
  }
}

function build(people: Config['people']): Directory {
  const byName = new Map<string, ActingPerson>();
  const bySender = new Map<string, ActingPerson>();
  let owner: ActingPerson | undefined;
  for (const [name, person] of Object.entries(people ?? {})) {
    const acting: ActingPerson = {
      name, role: person.role, folder: `people/${name}`,
      ...(person.timezone !== undefined ? { timezone: person.timezone } : {}),
      ...(person.budget.daily_tokens !== undefined ? { dailyTokens: person.budget.daily_tokens } : {}),
    };
    byName.set(name, acting);
    if (person.role === 'owner') owner = acting;
    for (const [channel, ids] of Object.entries(person.ids)) {
      if (Array.isArray(ids)) for (const id of ids) bySender.set(`${channel}\u0000${id}`, acting);
    }
  }
  return { source: people, byName, bySender, owner };
}

/** Every person's ids on a channel in `config` (`people:`): they are let in without being repeated in allowed_users. */
export function peopleIdsOn(config: Pick<Config, 'people'>, channel: string): string[] {
  const ids: string[] = [];
  for (const person of Object.values(config.people ?? {})) {
    const on = person.ids[channel];
    if (Array.isArray(on)) ids.push(...on);
  }
  return ids;
}
