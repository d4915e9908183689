import type { People } from '../../config/people.js';
import type { ButtonAnswer, ButtonPress } from '../../delivery/types.js';
import type { ActingPerson } from '../../lib/person-scope.js';
import type { Result } from '../../lib/result.js';
import { Consolidator, PROPOSAL_BUTTON, type Consolidation, type ConsolidatorDeps } from './consolidator.js';

/** Where a stored path is someone's: `people/<name>/…` (person-view.ts). */
const PERSON_PATH = /^people\/([a-z][a-z0-9_-]{0,31})\//;

export interface HouseholdConsolidationDeps extends Omit<ConsolidatorDeps, 'household'> {
  people: Pick<People, 'get' | 'forSender'>;
  /** A direct chat with a person (`telegram:123`), found as the owner's is for approvals (the root's); undefined: none. */
  directChat?: ((name: string) => Promise<string | undefined>) | undefined;
}

/**
 * Consolidation in a household (docs/household.md, Memory): one pass per person, each inside that person's view of
 * the folder (their own files, never shared/ nor anyone else's), counted from the writes to their folder, proposed in
 * their direct chat and applied only by their press there. A guest has no folder and so no pass.
 */
export class HouseholdConsolidation {
  private readonly deps: HouseholdConsolidationDeps;
  private readonly consolidators = new Map<string, { person: ActingPerson; consolidator: Consolidator }>();

  constructor(deps: HouseholdConsolidationDeps) {
    this.deps = deps;
  }

  /** A memory file changed (its stored path): the pass of the person whose folder it is in, if it is due. */
  afterWrite(stored: string): Promise<void> {
    const name = PERSON_PATH.exec(stored)?.[1];
    return (name === undefined ? undefined : this.of(name)?.maybeRun()) ?? Promise.resolve();
  }

  /** One person's pass now (`familiar`'s own work and tests); undefined for a name that is not a person. */
  run(name: string, mode?: 'propose' | 'apply'): Promise<Result<Consolidation>> | undefined {
    return this.of(name)?.run(mode);
  }

  /** Apply or Discard under a proposal: answered by the consolidator of the person whose files it changes. */
  async press(press: ButtonPress): Promise<ButtonAnswer | undefined> {
    const token = PROPOSAL_BUTTON.exec(press.data)?.[1];
    if (token === undefined) return undefined;
    const row = this.deps.db.prepare('SELECT files FROM memory_proposals WHERE token = ?').get(token) as { files: string } | undefined;
    const paths = row ? (JSON.parse(row.files) as Array<{ path: string }>).map((file) => PERSON_PATH.exec(file.path)?.[1]) : [];
    const name = paths[0];
    const consolidator = name !== undefined && paths.every((other) => other === name) ? this.of(name) : undefined;
    return consolidator ? consolidator.press(press) : { notice: 'This proposal is no longer open.' };
  }

  /** The person's consolidator, made again when a config reload changed them; undefined for one no longer listed. */
  private of(name: string): Consolidator | undefined {
    const person = this.deps.people.get(name);
    if (person?.folder === undefined) return undefined;
    const known = this.consolidators.get(name);
    if (known?.person === person) return known.consolidator;
    const { people, directChat, ...shared } = this.deps;
    const consolidator = new Consolidator({
      ...shared,
      household: {
        person: { ...person, folder: person.folder },
        target: async () => {
          const direct = await directChat?.(name);
          // The owner's chat when none is direct: scheduler.default_chat, where the household's own results go.
          return direct ?? (person.role === 'owner' ? this.deps.delivery?.targetFor(undefined) : undefined);
        },
        pressedBy: (press) => people.forSender(press.channel, press.userId).name === name,
      },
    });
    this.consolidators.set(name, { person, consolidator });
    return consolidator;
  }
}
