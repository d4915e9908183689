// In a household each person's memory tidy-up is their own (docs/household.md, Memory): it reads only their folder,
// writes only their files, is asked of them in their direct chat and applied only by their press, and is undone as one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../../src/config/load.js';
import { People } from '../../../src/config/people.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import type { Delivery, Reply } from '../../../src/delivery/types.js';
import { ProvenanceLabels } from '../../../src/gate/labels.js';
import { withPerson } from '../../../src/lib/person-scope.js';
import { createLlmClient } from '../../../src/llm/client.js';
import { HouseholdConsolidation } from '../../../src/memory/consolidation/household.js';
import { createMemoryPart, type MemoryPart } from '../../../src/memory/part.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { captureLogger, tempDir } from '../../helpers/app.js';

const ANN_TG = '111111111';
const BEN_TG = '222222222';
const ANN_PROFILE = '# Ann\n\n- Allergic to penicillin.\n- Door code 4711.\n';
const BEN_INBOX = '# Inbox\n\n- 2026-10-02: chess club moved to Thursday.\n- Likes green tea.\n';
const BEN_PROFILE = '# Ben\n\n- Likes green tea.\n';
const SHARED = '# Family\n\n- Dinner at 7.\n';

describe('memory consolidation in a household', () => {
  let fake: FakeOpenAI;
  let root: string;
  let db: Database;
  let memory: MemoryPart;
  let household: HouseholdConsolidation;
  let people: People;
  let sent: Array<{ target: string | undefined; reply: Reply }>;
  const file = (name: string) => readFileSync(path.join(root, name), 'utf8');
  const answer = (files: Array<{ path: string; content: string }>) => ({ content: JSON.stringify({ summary: 'Moved a dated fact to log.md.', files }) });
  const bensLog = { path: 'log.md', content: '# Log\n\n- 2026-10-02: chess club moved to Thursday.\n' };
  const bensInbox = { path: 'inbox.md', content: '# Inbox\n\n- Likes green tea.\n' };
  /** Ben's pass proposes moving his dated fact to log.md; the data of its Apply button. */
  const proposeBensTidyUp = async (): Promise<string> => {
    fake.script(answer([bensLog, bensInbox]));
    const result = await household.run('ben', 'propose');
    if (!result?.success) throw new Error(result?.error);
    return sent[0]?.reply.buttons?.find((button) => button.label === 'Apply')?.data ?? '';
  };

  beforeAll(async () => {
    fake = await startOpenAiServer();
  });
  afterAll(async () => fake.close());

  beforeEach(async () => {
    const dir = tempDir();
    root = path.join(dir, 'memory');
    for (const folder of ['people/ann', 'people/ben', 'shared']) mkdirSync(path.join(root, folder), { recursive: true });
    writeFileSync(path.join(root, 'people/ann/profile.md'), ANN_PROFILE);
    writeFileSync(path.join(root, 'people/ben/inbox.md'), BEN_INBOX);
    writeFileSync(path.join(root, 'people/ben/profile.md'), BEN_PROFILE);
    writeFileSync(path.join(root, 'shared/family.md'), SHARED);
    db = openDatabase(path.join(dir, 'data'));
    const log = captureLogger([], []);
    const config = validateConfig({
      llm: { base_url: fake.baseUrl, api_key: fake.apiKey, model: 'gpt-test', max_retries: 0, timeout_s: 10 },
      people: {
        ann: { role: 'owner', ids: { telegram: [ANN_TG], console: true } },
        ben: { role: 'member', ids: { telegram: [BEN_TG] } },
        cid: { role: 'child' },
      },
    });
    people = new People(config);
    memory = createMemoryPart({ memoryDir: root, db, log, labels: new ProvenanceLabels(db), household: { owner: 'ann', people: ['ann', 'ben', 'cid'] } });
    sent = [];
    const delivery = {
      chatOf: () => undefined,
      targetFor: () => undefined,
      async deliver(target: string | undefined, reply: Reply) {
        sent.push({ target, reply });
        return { deliveredTo: target ?? '' };
      },
      render: (text: string) => text,
    } satisfies Delivery;
    // Telegram's direct chat with a user is the user's id (as the running Telegram channel answers it).
    const telegram = { ann: ANN_TG, ben: BEN_TG } as Record<string, string>;
    const directChat = async (name: string) => (telegram[name] === undefined ? undefined : `telegram:${telegram[name]}`);
    const attached = memory.attachConsolidation({
      llm: createLlmClient({ config: config.llm, log, sleep: async () => undefined }), delivery, people, directChat,
      settings: { consolidate: 'propose', consolidate_after: 2, consolidate_tokens: 6000 },
    });
    if (!(attached instanceof HouseholdConsolidation)) throw new Error('a household gets one consolidation per person');
    household = attached;
    await memory.part.start?.();
  });

  afterEach(async () => {
    await memory.part.close?.();
    db.close();
  });

  it('shows the model only the person\'s own files: none of another person\'s, none of shared/', async () => {
    fake.script(answer([]));
    await household.run('ben', 'propose');
    const shown = JSON.stringify(fake.requests.at(-1)?.body.messages);
    expect(shown).toContain('chess club moved to Thursday');
    expect(shown).not.toContain('penicillin');
    expect(shown).not.toContain('Dinner at 7');
  });

  it('refuses whole a proposal that names another person\'s file, shared/ or a path outside the person\'s folder', async () => {
    for (const outside of ['../ann/profile.md', path.join(root, 'people/ann/profile.md'), 'people/ann/profile.md', 'shared/family.md', '../../shared/family.md']) {
      fake.script(answer([bensLog, bensInbox, { path: outside, content: `${ANN_PROFILE}- Ben was here.\n` }]));
      const result = await household.run('ben', 'apply');
      expect(result, outside).toMatchObject({ success: false, error: expect.stringContaining(`the proposal writes ${outside}`) });
    }
    expect(file('people/ann/profile.md')).toBe(ANN_PROFILE);
    expect(file('shared/family.md')).toBe(SHARED);
    expect(file('people/ben/inbox.md')).toBe(BEN_INBOX);
    expect(() => file('people/ben/log.md')).toThrow(/ENOENT/);
  });

  it('asks the person in their direct chat, and a press by anyone else there or in the console does nothing', async () => {
    const apply = await proposeBensTidyUp();
    expect(sent.map((delivered) => delivered.target)).toEqual([`telegram:${BEN_TG}`]);
    for (const press of [
      { channel: 'telegram', chatId: BEN_TG, userId: ANN_TG },
      { channel: 'telegram', chatId: ANN_TG, userId: ANN_TG },
      { channel: 'console', chatId: 'owner', userId: 'owner' },
    ]) {
      expect(await memory.pressButton({ ...press, data: apply, allowed: true }), press.channel).toEqual({ notice: expect.stringContaining('Not yours') });
    }
    expect(file('people/ben/inbox.md')).toBe(BEN_INBOX);
    expect(() => file('people/ben/log.md')).toThrow(/ENOENT/);
  });

  it('applies on the person\'s own press only to their files, and one undo puts them back', async () => {
    const apply = await proposeBensTidyUp();
    const pressed = await memory.pressButton({ channel: 'telegram', chatId: BEN_TG, userId: BEN_TG, data: apply, allowed: true });
    expect(pressed?.outcome).toContain('Applied to log.md, inbox.md');
    expect(file('people/ben/log.md')).toContain('chess club');
    expect(file('people/ann/profile.md')).toBe(ANN_PROFILE);
    expect(file('shared/family.md')).toBe(SHARED);
    const batch = (db.prepare('SELECT batch FROM memory_proposals').get() as { batch: string }).batch;
    expect(memory.history.batch(batch).map((change) => change.path)).toEqual(['people/ben/log.md', 'people/ben/inbox.md']);
    expect(await withPerson(people.get('ann') ?? { name: 'ann', role: 'owner', folder: 'people/ann' }, () => memory.history.revertBatch(batch))).toMatchObject({ success: false });
    expect(await withPerson(people.get('ben') ?? { name: 'ben', role: 'member', folder: 'people/ben' }, () => memory.history.revertBatch(batch))).toMatchObject({ success: true });
    expect(file('people/ben/inbox.md')).toBe(BEN_INBOX);
    expect(() => file('people/ben/log.md')).toThrow(/ENOENT/);
  });

  it('counts each person\'s own writes towards their pass', async () => {
    fake.script(answer([]), answer([]));
    const before = fake.requests.length;
    const ben = people.get('ben') ?? { name: 'ben', role: 'member', folder: 'people/ben' };
    const ann = people.get('ann') ?? { name: 'ann', role: 'owner', folder: 'people/ann' };
    await withPerson(ben, () => memory.store.write('inbox.md', '- Bought a chess clock.', { mode: 'append' }));
    await withPerson(ann, () => memory.store.write('profile.md', '- Runs on Sundays.', { mode: 'append' }));
    await withPerson(ann, () => memory.store.write('profile.md', '- Reads on Mondays.', { mode: 'append' }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(before + 1));
    expect(JSON.stringify(fake.requests[before]?.body.messages)).toContain('Runs on Sundays');
    await withPerson(ben, () => memory.store.write('inbox.md', '- Lost the chess clock.', { mode: 'append' }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(before + 2));
    const bens = JSON.stringify(fake.requests[before + 1]?.body.messages);
    expect(bens).toContain('Lost the chess clock');
    expect(bens).not.toContain('Runs on Sundays');
  });

  it('makes no pass for someone with no direct chat, nor for a guest', async () => {
    const before = fake.requests.length;
    expect(await household.run('cid', 'propose')).toMatchObject({ success: false, error: expect.stringContaining('no direct chat') });
    expect(household.run('guest', 'propose')).toBeUndefined();
    expect(fake.requests.length).toBe(before);
  });
});
