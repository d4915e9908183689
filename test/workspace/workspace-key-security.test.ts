// The workspace key (src/workspace/workspace-key.ts): in a household everyone but the owner has their own in every
// conversation, a safe folder name that never collides with a conversation's id or another person's.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withPerson, type ActingPerson } from '../../src/lib/person-scope.js';
import { workspaceFor } from '../../src/workspace/workspace-key.js';
import { Workspaces } from '../../src/workspace/workspace.js';
import { tempDir } from '../helpers/app.js';

const BEN: ActingPerson = { name: 'ben', role: 'member', folder: 'people/ben' };
const ANN: ActingPerson = { name: 'ann', role: 'owner', folder: 'people/ann' };
const GUEST: ActingPerson = { name: 'guest', role: 'guest', folder: undefined };
const CONVERSATION = 'telegram-_100777-m1abc';

describe('the workspace key', () => {
  const dir = tempDir();
  const workspaces = new Workspaces(dir, '1000');

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the conversation id outside a household', () => {
    expect(workspaceFor(CONVERSATION)).toBe(CONVERSATION);
  });

  it('is the conversation id for the owner, whose are the files from before the household', () => {
    expect(withPerson(ANN, () => workspaceFor(CONVERSATION))).toBe(CONVERSATION);
  });

  it('is a member\'s own in every conversation, direct or not: a room that changes hands never hands its files over', () => {
    expect(withPerson(BEN, () => workspaceFor(CONVERSATION))).toBe(`${CONVERSATION}@ben`);
  });

  it('is a guest\'s own, apart from everyone\'s', () => {
    expect(withPerson(GUEST, () => workspaceFor(CONVERSATION))).toBe(`${CONVERSATION}@guest`);
  });

  it('is a folder of its own under the workspaces', () => {
    expect(workspaces.dir(`${CONVERSATION}@ben`)).toBe(path.join(dir, 'workspaces', `${CONVERSATION}@ben`));
  });

  it('refuses what no conversation or person could make: a second name, an upper-case or empty name, a path', () => {
    for (const bad of [`${CONVERSATION}@ben@ann`, `${CONVERSATION}@Ben`, `${CONVERSATION}@`, '@ben', `${CONVERSATION}@../ann`, `${CONVERSATION}@ben/x`, `${CONVERSATION}/@ben`]) {
      expect(() => workspaces.dir(bad), bad).toThrow(/not a safe folder name/);
    }
  });
});
