import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sleep, userTexts } from '../../helpers/channels.js';
import { OWNER_MX, STRANGER_MX, bodies, startMatrixRig, type MatrixRig } from './matrix-rig.js';

describe('Matrix channel (matrix-js-sdk against the fake homeserver)', () => {
  let rig: MatrixRig;
  let dm: string;

  beforeEach(async () => {
    rig = await startMatrixRig({ setup: (matrix) => {
      dm = matrix.createRoom({ members: [OWNER_MX] });
    } });
  });

  afterEach(async () => {
    await rig.close();
  });

  it('answers an allowed person in a direct room, formatted as Matrix HTML, with typing', async () => {
    rig.llm.script({ content: 'Hello from **Matrix**.', delayMs: 200 });
    rig.matrix.say(dm, OWNER_MX, 'hi');
    const [sent] = await rig.matrix.waitFor(() => rig.matrix.messagesIn(dm).length > 0 && rig.matrix.messagesIn(dm));
    expect(sent?.content).toMatchObject({ msgtype: 'm.text', body: 'Hello from **Matrix**.', format: 'org.matrix.custom.html', formatted_body: '<p>Hello from <strong>Matrix</strong>.</p>', 'm.mentions': {} });
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
});
