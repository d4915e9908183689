import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep, userTexts } from '../../helpers/channels.js';
import { OWNER_MX, STRANGER_MX, bodies, startMatrixRig, type MatrixRig } from './matrix-rig.js';

describe('Matrix channel (matrix-js-sdk against the fake homeserver)', () => {
  let rig: MatrixRig;
  let dm = '';

  beforeEach(async () => {
    rig = await startMatrixRig({
      setup: (matrix) => {
        dm = matrix.createRoom({ members: [OWNER_MX] });
      },
    });
  });

  afterEach(async () => {
    await rig.close();
  });

  it('answers an allowed person in a direct room, formatted as Matrix HTML, with typing', async () => {
    rig.llm.script({ content: 'Hello from **Matrix**.', delayMs: 200 });
    rig.matrix.say(dm, OWNER_MX, 'hi');
    const sent = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm)[0]);
    expect(sent.content).toMatchObject({ msgtype: 'm.text', body: 'Hello from **Matrix**.', format: 'org.matrix.custom.html', formatted_body: '<p>Hello from <strong>Matrix</strong>.</p>', 'm.mentions': {} });
    expect(rig.matrix.typing.some((typing) => typing.roomId === dm && typing.typing)).toBe(true);
    expect(userTexts(rig.llm)).toEqual(['hi']);
  });

  it('gives a stranger in a direct room the pairing answer and nothing else', async () => {
    const room = rig.matrix.createRoom({ members: [STRANGER_MX] });
    rig.matrix.say(room, STRANGER_MX, 'hello?');
    await rig.matrix.waitFor(() => bodies(rig.matrix, room)[0]);
    expect(bodies(rig.matrix, room)[0]).toMatch(/familiar pairing approve [A-Z0-9]+/);
    expect(rig.llm.requests).toHaveLength(0);
  });

  it('in a group room answers only when mentioned or replied to, as a reply', async () => {
    const group = rig.matrix.createRoom({ members: [OWNER_MX, STRANGER_MX, '@other:example.org'], name: 'Family' });
    rig.matrix.say(group, OWNER_MX, 'talking among ourselves');
    const asked = rig.matrix.say(group, OWNER_MX, 'familiar: what is 2+2?');
    const answer = await rig.matrix.waitFor(() => rig.matrix.messagesIn(group)[0]);
    expect(answer.content['body']).toBe('echo: what is 2+2?');
    expect(answer.content['m.relates_to']).toEqual({ 'm.in_reply_to': { event_id: asked } });
    rig.matrix.say(group, OWNER_MX, 'and 3+3?', { replyTo: answer.event_id });
    await rig.matrix.waitFor(() => rig.matrix.messagesIn(group)[1]);
    rig.matrix.say(group, OWNER_MX, 'and 4+4?', { mentions: [rig.matrix.botUserId] });
    await rig.matrix.waitFor(() => rig.matrix.messagesIn(group)[2]);
    expect(userTexts(rig.llm)).toEqual(['what is 2+2?', 'and 3+3?', 'and 4+4?']);
  });

  it('splits a long answer into parts of at most 16,000 characters with balanced fences', async () => {
    const code = '```js\n' + Array.from({ length: 1200 }, (_, index) => `console.log(${index}); // a comment`).join('\n') + '\n```';
    rig.llm.script({ content: `Intro paragraph.\n\n${code}\n\nOutro.` });
    rig.matrix.say(dm, OWNER_MX, 'code please');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm).at(-1)?.endsWith('Outro.'));
    const parts = rig.matrix.messagesIn(dm);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      const body = String(part.content['body']);
      expect(body.length).toBeLessThanOrEqual(16_000);
      expect(body.split('\n').filter((line) => line.startsWith('```')).length % 2).toBe(0);
      expect(String(part.content['formatted_body'])).toContain('<pre><code class="language-js">');
    }
  });

  it('sends the same text without its HTML when the homeserver refuses the formatted event', async () => {
    rig.llm.script({ content: 'A **bold** claim.' });
    rig.matrix.failNext('/send/m.room.message/', 400, 'M_BAD_JSON');
    rig.matrix.say(dm, OWNER_MX, 'hi');
    const sent = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm)[0]);
    expect(sent.content).toEqual({ msgtype: 'm.text', body: 'A **bold** claim.', 'm.mentions': {} });
    expect(rig.t.logs.some((line) => line.includes('refused the formatted message; sending it as plain text'))).toBe(true);
  });

  it('retries a rate-limited send with the same transaction id, so the reply arrives once', async () => {
    rig.matrix.failNext('/send/m.room.message/', 429, 'M_LIMIT_EXCEEDED', 1, { retry_after_ms: 50 });
    rig.matrix.say(dm, OWNER_MX, 'hi');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    const sends = rig.matrix.requests.filter((request) => request.path.includes('/send/m.room.message/'));
    expect(sends).toHaveLength(2);
    expect(sends[0]?.path).toBe(sends[1]?.path);
    expect(bodies(rig.matrix, dm)).toEqual(['echo: hi']);
  });

  it('does not answer an event twice when the homeserver hands it out again', async () => {
    const first = rig.matrix.say(dm, OWNER_MX, 'once');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    rig.matrix.redeliver(first);
    rig.matrix.say(dm, OWNER_MX, 'twice');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[1]);
    await sleep(200);
    expect(bodies(rig.matrix, dm)).toEqual(['echo: once', 'echo: twice']);
  });

  it('after a restart answers what came while it was down, and nothing it had answered', async () => {
    rig.matrix.say(dm, OWNER_MX, 'before');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    await rig.app.close(2000);
    rig.matrix.say(dm, OWNER_MX, 'while down');
    rig.app = await rig.t.restart();
    await rig.app.start();
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[1]);
    rig.matrix.say(dm, OWNER_MX, 'after');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[2]);
    await sleep(200);
    expect(bodies(rig.matrix, dm)).toEqual(['echo: before', 'echo: while down', 'echo: after']);
  });

  it('answers chat commands without the LLM and /stop ends a long turn', async () => {
    rig.llm.script({ hang: true });
    rig.matrix.say(dm, OWNER_MX, 'long task');
    await rig.llm.waitForRequests(1);
    rig.matrix.say(dm, OWNER_MX, '/stop');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0]);
    expect(bodies(rig.matrix, dm)[0]).toBe('Stopped.');
    expect(rig.llm.requests).toHaveLength(1);
  });

  it('keeps syncing after the connection drops', async () => {
    rig.matrix.dropConnection(300);
    await sleep(400);
    rig.matrix.say(dm, OWNER_MX, 'still there?');
    await rig.matrix.waitFor(() => bodies(rig.matrix, dm)[0], 15_000);
    expect(bodies(rig.matrix, dm)).toEqual(['echo: still there?']);
  });
});
