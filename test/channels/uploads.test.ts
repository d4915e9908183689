// A file sent on Telegram is announced to the model by the path its file tools take (relative to the workspace),
// never by the host's data folder. Real engine for the workspace, fake Telegram server, fake LLM.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_TG, startChannelRig, userTexts, type ChannelRig } from '../helpers/channels.js';
import { TEST_IMAGE, TEST_LABEL, describeDocker } from '../helpers/docker.js';

describeDocker('files sent in a chat', () => {
  let rig: ChannelRig;

  beforeAll(async () => {
    rig = await startChannelRig({
      which: ['telegram'],
      overrides: { tools: { sandbox: { image: TEST_IMAGE, pool_size: 0, labels: { [TEST_LABEL]: 'chat-uploads' } } } },
    });
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('announces a document by a workspace path that the read tool opens', async () => {
    let announced = '';
    let readResult = '';
    rig.llm.handle((request) => {
      const last = request.body.messages.at(-1);
      if (last?.role === 'tool') {
        readResult = String(last.content);
        return { content: 'Read it.' };
      }
      announced = /- notes\.txt \(text\/plain, 15 B\): (\S+)/.exec(userTexts(rig.llm).at(-1) ?? '')?.[1] ?? '';
      return { toolCalls: [{ name: 'read', arguments: { path: announced } }] };
    });
    rig.telegram.sendUserMessage({ chatId: OWNER_TG, userId: OWNER_TG, caption: 'keep this', document: { content: 'meeting at noon', fileName: 'notes.txt', mimeType: 'text/plain' } });
    await rig.telegram.waitFor(() => rig.telegram.messagesTo(OWNER_TG)[0], 20_000);
    expect(announced).toMatch(/^uploads\/[a-z0-9]+-notes\.txt$/);
    expect(userTexts(rig.llm)[0]).not.toContain(rig.app.config.data_dir);
    expect(readResult).toContain('1\tmeeting at noon');
  }, 30_000);
});
