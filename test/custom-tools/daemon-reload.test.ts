// The running daemon (`node dist/main.js start`; run `npm run build` first) picks up an edit in tools_dir on SIGHUP,
// without a restart, and lists what it loaded with its sha256. The file watch is off here, so only the signal can do it.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, writeTestConfig } from '../helpers/app.js';
import { alive, startDaemon, waitUntil, type Daemon } from '../helpers/daemon.js';

let daemon: Daemon | undefined;
afterEach(async () => {
  if (daemon && alive(daemon)) await daemon.kill9();
  daemon = undefined;
});

const lamp = (state: string) => `import { defineTool } from 'familiar';
export default defineTool({ name: 'lamp_toggle', description: 'Toggles the lamp.', parameters: { type: 'object' }, effects: [], execute: () => '${state}' });
`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('SIGHUP', () => {
  it('reloads the custom tools of the running daemon, which keeps running', async () => {
    const dir = tempDir('familiar-hup-');
    writeTestConfig(dir, undefined, { log: { level: 'info', format: 'json' }, tools_dir: './my-tools', tools: { watch: false } });
    const toolsDir = path.join(dir, 'my-tools');
    mkdirSync(toolsDir, { recursive: true });
    writeFileSync(path.join(toolsDir, 'lamp.mjs'), lamp('on'));
    daemon = startDaemon(dir, { TEST_LLM_KEY: 'unused' });
    await daemon.ready;
    expect(daemon.stderr()).toContain(`custom tools: loaded lamp.mjs sha256 ${sha256(lamp('on'))}`);
    expect(daemon.stderr()).toContain('run inside the daemon with its full rights');

    writeFileSync(path.join(toolsDir, 'lamp.mjs'), lamp('off'));
    writeFileSync(path.join(toolsDir, 'broken.mjs'), 'export default {');
    const current = daemon;
    current.child.kill('SIGHUP');
    await waitUntil(() => current.stderr().includes('"msg":"custom tools reloaded"'), 60_000, 'the reload');
    expect(current.stderr()).toContain(`custom tools: reloaded lamp.mjs sha256 ${sha256(lamp('off'))}`);
    expect(current.stderr()).toMatch(/custom tools: broken\.mjs: .*not loaded; the rest of the daemon runs/);
    expect(alive(current)).toBe(true);
    expect(await current.term()).toBe(0);
  }, 120_000);
});
