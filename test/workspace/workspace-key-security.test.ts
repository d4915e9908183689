// The workspace key (src/workspace/workspace-key.ts): a person's own in a household's shared conversation, a safe folder
// name that never collides with a conversation's id or another person's.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withPerson, type ActingPerson } from '../../src/lib/person-scope.js';
import { isPersonal, workspaceFor } from '../../src/workspace/workspace-key.js';
import { Workspaces } from '../../src/workspace/workspace.js';
import { tempDir } from '../helpers/app.js';

const BEN: ActingPerson = { name: 'ben', role: 'member', folder: 'people/ben' };
const CONVERSATION = 'telegram-_100777-m1abc';

describe('the workspace key', () => {
  const dir = tempDir();
  const workspaces = new Workspaces(dir, '1000');

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the conversation id outside a household, in a group too', () => {
    expect(workspaceFor(CONVERSATION, true)).toBe(CONVERSATION);
  });

  it('is the conversation id in a person\'s direct chat, so its files from before the household stay its own', () => {
    expect(withPerson(BEN, () => workspaceFor(CONVERSATION, false))).toBe(CONVERSATION);
  });

  it('is the person\'s own in a shared conversation', () => {
    const key = withPerson(BEN, () => workspaceFor(CONVERSATION, true));
    expect(key).toBe(`${CONVERSATION}@ben`);
    expect(isPersonal(key)).toBe(true);
    expect(isPersonal(CONVERSATION)).toBe(false);
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
