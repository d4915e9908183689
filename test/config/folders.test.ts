import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED, PACKAGE_ROOT } from '../../src/config/folders.js';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/app.js';

function configIn(dir: string, text: string): string {
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, text);
  return file;
}

describe('where the person\'s folders are', () => {
  it('puts memory and skills in data_dir by default', () => {
    const dir = tempDir();
    const loaded = loadConfig({ configPath: configIn(dir, 'data_dir: ./state\n'), env: {} });
    expect(loaded.config.memory_dir).toBe(path.join(dir, 'state', 'memory'));
    expect(loaded.config.skills_dir).toBe(path.join(dir, 'state', 'skills'));
    expect(loaded.relocated).toBeUndefined();
  });

  it('keeps using ./memory and ./skills beside the config of a set-up made before the default moved', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'memory'));
    mkdirSync(path.join(dir, 'skills'));
    const loaded = loadConfig({ configPath: configIn(dir, '{}\n'), env: {} });
    expect(loaded.config.memory_dir).toBe(path.join(dir, 'memory'));
    expect(loaded.config.skills_dir).toBe(path.join(dir, 'skills'));
  });

  it('takes configured folders as they are, relative to the config file', () => {
    const dir = tempDir();
    const loaded = loadConfig({ configPath: configIn(dir, 'memory_dir: ./notes\nskills_dir: /srv/skills\n'), env: {} });
    expect(loaded.config.memory_dir).toBe(path.join(dir, 'notes'));
    expect(loaded.config.skills_dir).toBe('/srv/skills');
  });

  it('never uses Familiar\'s own bundled folders: a config naming them gets data_dir\'s, and says so', () => {
    const dir = tempDir();
    const text = `memory_dir: ${BUNDLED.memory_dir}\nskills_dir: ${path.relative(dir, BUNDLED.skills_dir)}\n`;
    const loaded = loadConfig({ configPath: configIn(dir, text), env: {} });
    expect(loaded.config.memory_dir).toBe(path.join(dir, 'data', 'memory'));
    expect(loaded.config.skills_dir).toBe(path.join(dir, 'data', 'skills'));
    expect(loaded.relocated).toEqual([
      { key: 'memory_dir', from: BUNDLED.memory_dir, to: path.join(dir, 'data', 'memory') },
      { key: 'skills_dir', from: BUNDLED.skills_dir, to: path.join(dir, 'data', 'skills') },
    ]);
  });

  it('in a checkout without config.yaml, the old default ./memory (the bundled folder) is not used', () => {
    const loaded = loadConfig({ cwd: PACKAGE_ROOT, env: {} });
    expect(loaded.source).toBe('example');
    expect(loaded.config.memory_dir).toBe(path.join(PACKAGE_ROOT, 'data', 'memory'));
    expect(loaded.config.skills_dir).toBe(path.join(PACKAGE_ROOT, 'data', 'skills'));
  });
});
