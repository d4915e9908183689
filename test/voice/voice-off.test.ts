// Without a voice section the daemon offers /voice (saying how to turn it on) and loads none of the engines' code:
// ffmpeg's wrapper, the recogniser, the synthesiser and the service stay unread until a config asks for them. Checked
// on the built modules (`npm run build` first) in a child process whose module resolutions are recorded.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runRecordingResolutions } from '../helpers/resolutions.js';

const ENGINE_MODULES = ['engines-part.js', 'service.js', 'stt.js', 'tts.js', 'ffmpeg.js', 'doctor.js'];

interface Made {
  loaded: string[];
  tools: string[];
  commands: string[];
  service: boolean;
}

/** Makes the voice part from the built modules for this voice section, recording which dist/voice/ files resolve. */
function makeVoicePart(voice: Record<string, unknown> | undefined): Made {
  const dir = tempDir('familiar-voice-off-');
  const dist = pathToFileURL(path.resolve('dist')).href;
  const config = { timezone: 'UTC', data_dir: dir, ...(voice ? { voice } : {}) };
  const script = `
    const { configSchema } = await import('${dist}/config/schema.js');
    const { openDatabase } = await import('${dist}/db/database.js');
    const { createLogger } = await import('${dist}/log.js');
    const { createVoicePart } = await import('${dist}/voice/part.js');
    const db = openDatabase(${JSON.stringify(dir)});
    const log = createLogger({ level: 'error', format: 'json', secrets: [] });
    const { part, service } = await createVoicePart({ config: configSchema().parse(${JSON.stringify(config)}), db, log });
    const made = { tools: part.tools.map((tool) => tool.name), commands: [...part.commands.keys()], service: service !== undefined };
    process.stdout.write(JSON.stringify(made));
    db.close();
  `;
  const run = runRecordingResolutions(script);
  if (run.status !== 0) throw new Error(`the child exited ${run.status}: ${run.stderr}`);
  const loaded = run.resolved.filter((url) => url.includes('/dist/voice/')).map((url) => url.slice(url.lastIndexOf('/') + 1));
  return { loaded, ...(JSON.parse(run.stdout) as Omit<Made, 'loaded'>) };
}

describe('voice without a voice section', () => {
  it('offers /voice and loads none of the engines\' modules', () => {
    const made = makeVoicePart(undefined);
    expect(made).toMatchObject({ tools: [], commands: ['voice'], service: false });
    expect(made.loaded).toContain('part.js');
    expect(made.loaded.filter((file) => ENGINE_MODULES.includes(file))).toEqual([]);
  });

  it('loads them when speech is configured, and offers voice_reply', () => {
    const made = makeVoicePart({ tts: { command: ['espeak-ng', '--stdout'] } });
    expect(made).toMatchObject({ tools: ['voice_reply'], commands: ['voice'], service: true });
    expect(made.loaded).toEqual(expect.arrayContaining(['engines-part.js', 'service.js', 'tts.js', 'ffmpeg.js']));
  });
});
