import type { People } from '../config/people.js';
import type { Delivery } from '../delivery/types.js';
import { currentPerson, type ActingPerson } from '../lib/person-scope.js';
import type { Result } from '../lib/result.js';
import type { CallOrigin } from '../tools/types.js';
import type { SkillMaker, SkillStore } from './store.js';

/**
 * A skill belongs to the person who made it (docs/household.md, Skills): its own runs act as them, its results go to
 * them, and only they or the owner change it. The record is a row of `skill_makers`, written where a skill comes into
 * being from a person's turn (create_skill, install_skill); the terminal is the owner's, and a skill with no row (from
 * before the household, or made by hand) is the owner's. Outside a household nothing here is read or written.
 */
export class SkillMakers {
  private readonly people: People | undefined;
  private readonly store: SkillStore;

  constructor(people: People | undefined, store: SkillStore) {
    this.people = people;
    this.store = store;
  }

  get household(): boolean {
    return this.people?.household === true;
  }

  /** The maker's record; undefined outside a household or when the skill is the owner's by default. */
  record(id: string): SkillMaker | undefined {
    return this.household ? this.store.maker(id) : undefined;
  }

  /** The name shown beside a skill in a household (`familiar skills list`, list_skills); undefined outside one. */
  nameOf(id: string): string | undefined {
    if (!this.household) return undefined;
    return this.store.maker(id)?.person ?? this.people?.owner()?.name;
  }

  /**
   * Whom the skill's own runs (its schedule) act as: its maker as people.ts resolves a recorded name (one no longer in
   * `people:` is a guest, as a job of theirs is), else the owner. Undefined outside a household.
   */
  actingPerson(id: string): ActingPerson | undefined {
    if (!this.household) return undefined;
    const maker = this.store.maker(id);
    return maker ? this.people?.named(maker.person) : this.people?.owner();
  }

  /** Records the acting person (the turn's, in scope) as the skill's maker; the terminal's (nobody in scope) is the owner. */
  remember(id: string, origin: CallOrigin | undefined, delivery: Pick<Delivery, 'chatOf'>): void {
    if (!this.household) return;
    const person = currentPerson();
    this.store.setMaker(id, person ? { person: person.name, chat: origin ? delivery.chatOf(origin) : undefined } : undefined);
  }

  /**
   * Where the skill's own runs deliver: SKILL.md's `deliver_to`, else the chat it was made in (as a job's results go
   * where it was made), else `scheduler.default_chat` — for the owner's skills only: that chat is the owner's, and
   * someone else's results never go there.
   */
  target(id: string, explicit: string | undefined, delivery: Pick<Delivery, 'targetFor'>): string | undefined {
    if (explicit !== undefined || !this.household) return delivery.targetFor(undefined, explicit);
    const maker = this.store.maker(id);
    if (maker?.chat !== undefined) return maker.chat;
    return maker && this.people?.named(maker.person).role !== 'owner' ? undefined : delivery.targetFor(undefined, undefined);
  }

  /**
   * Whether the person in scope may change the skill (pause, resume, activate, delete, update): the owner (and the
   * terminal and the console, which are the owner's) any; anyone else only their own.
   */
  mayChange(id: string): Result {
    const person = currentPerson();
    if (!this.household || person === undefined || person.role === 'owner') return { success: true, value: undefined };
    const maker = this.nameOf(id);
    if (maker === person.name) return { success: true, value: undefined };
    return { success: false, error: `Skill "${id}" is ${maker ?? 'the owner'}'s: only they or the owner can change it. You can still run it (run_skill).` };
  }
}
