import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMatrixServer, type FakeMatrix } from '../../fakes/matrix-server.js';
import { startOpenAiServer, type FakeOpenAI } from '../../fakes/openai-server.js';
import { makeTestApp } from '../../helpers/app.js';

describe('familiar doctor for Matrix (a whoami against the fake homeserver)', () => {
  let llm: FakeOpenAI;
  let matrix: FakeMatrix;
  beforeAll(async () => {
    llm = await startOpenAiServer();
    matrix = await startMatrixServer();
  });
  afterAll(async () => {
    await Promise.all([llm.close(), matrix.close()]);
  });

  /** The doctor lines of the daemon's matrix part, for this `channels.matrix` (the daemon is built, not started). */
  async function doctor(section: Record<string, unknown>) {
    const t = await makeTestApp(llm, { channels: { matrix: { homeserver_url: matrix.baseUrl, access_token: matrix.accessToken, ...section } } });
    try {
      const part = t.app.parts.find((candidate) => candidate.name === 'matrix');
      return await part?.doctor?.();
    } finally {
      await t.app.close(100);
    }
  }

  it('is ok with the bot\'s user id when the token is accepted', async () => {
    expect(await doctor({})).toEqual([{ status: 'ok', label: 'matrix', detail: matrix.botUserId }]);
  });

  it('names channels.matrix.access_token when the homeserver rejects the token', async () => {
    expect(await doctor({ access_token: 'syt_wrong' })).toEqual([{
      status: 'fail', label: 'matrix', detail: 'access token rejected (M_UNKNOWN_TOKEN)',
      fix: 'set channels.matrix.access_token to the bot account\'s token (docs/channels/matrix.md shows how to get one)',
    }]);
  });

  it('names channels.matrix.user_id when the token is another account\'s', async () => {
    const [line] = await doctor({ user_id: '@someone:example.org' }) ?? [];
    expect(line).toMatchObject({ status: 'fail', detail: `the access token belongs to ${matrix.botUserId}, not @someone:example.org` });
    expect(line?.fix).toContain('set channels.matrix.user_id');
  });

  it('names channels.matrix.homeserver_url when nothing answers there', async () => {
    const [line] = await doctor({ homeserver_url: 'http://127.0.0.1:9' }) ?? [];
    expect(line).toMatchObject({ status: 'fail', fix: 'check the network and channels.matrix.homeserver_url' });
    expect(line?.detail).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9 \(/);
  });

  it('refuses to start with a rejected token, naming the key', async () => {
    const t = await makeTestApp(llm, { channels: { matrix: { homeserver_url: matrix.baseUrl, access_token: 'syt_wrong', allowed_users: ['@owner:example.org'] } } });
    await t.app.start();
    await t.app.close(100);
    expect(t.logs.join('')).toContain('matrix: access token rejected (M_UNKNOWN_TOKEN); set channels.matrix.access_token');
  });
});
