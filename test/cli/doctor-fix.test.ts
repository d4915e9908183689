import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { tempDir } from '../helpers/app.js';
import { describeDocker, TEST_IMAGE } from '../helpers/docker.js';
import { captureIo } from '../helpers/io.js';

const SECRET = 'sk-inline-secret-123456';
const mode = (file: string): number => statSync(file).mode & 0o777;

/** A config folder whose data, memory and skills folders do not exist yet. The LLM is a closed port: not checked here. */
function setup(extra = '', { inlineKey = false } = {}) {
  const dir = tempDir();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ./data\nmemory_dir: ./memory\nskills_dir: ./skills\nllm:\n  base_url: http://127.0.0.1:9/v1\n  api_key: ${inlineKey ? SECRET : '${LLM_KEY}'}\n  model: small\n${extra}`);
  writeFileSync(path.join(dir, '.env'), 'LLM_KEY=sk-env-secret-123456\n');
  return { dir, config, env: path.join(dir, '.env') };
}

async function doctor(config: string, ...args: string[]) {
  const io = captureIo();
  const code = await runCli(['doctor', ...args, '--config', config], io);
  return { code, out: io.out(), err: io.err() };
}

describe('familiar doctor --fix', () => {
  it('creates the folders (memory and skills from the starter copies) and narrows .env to its owner, saying so', async () => {
    const { dir, config, env } = setup();
    chmodSync(env, 0o644);
    chmodSync(config, 0o666);
    const result = await doctor(config, '--fix');
    const fixed = result.out.split('\n').filter((line) => line.startsWith('+ '));
    expect(fixed).toEqual([
      `+ created data_dir ${path.join(dir, 'data')}`,
      `+ created memory_dir ${path.join(dir, 'memory')} from Familiar's starter memory`,
      `+ created skills_dir ${path.join(dir, 'skills')} from Familiar's bundled skills`,
      `+ ${env}: mode 644 → 600 (it holds secrets)`,
      `+ ${config}: mode 666 → 644 (others could change it)`,
    ]);
    expect(mode(env)).toBe(0o600);
    expect(mode(config)).toBe(0o644);
    expect(readdirSync(path.join(dir, 'memory')).length).toBeGreaterThan(0);
    expect(readdirSync(path.join(dir, 'skills')).length).toBeGreaterThan(0);
    // The checks run after the fixes, so they see the result.
    expect(result.out).toContain(`✓ memory_dir: ${path.join(dir, 'memory')} writable`);
    expect(result.out).not.toContain('readable by others');
  });

  it('a second run has nothing to fix; without --fix nothing is changed', async () => {
    const { config, env } = setup();
    chmodSync(env, 0o644);
    const plain = await doctor(config);
    expect(plain.out).not.toContain('+ ');
    expect(mode(env)).toBe(0o644);
    await doctor(config, '--fix');
    const again = await doctor(config, '--fix');
    expect(again.out.split('\n').filter((line) => line.startsWith('+ '))).toEqual(['+ nothing to fix']);
  });

  it('never touches what exists: a memory folder of yours keeps exactly its files', async () => {
    const { dir, config } = setup();
    mkdirSync(path.join(dir, 'memory'));
    writeFileSync(path.join(dir, 'memory', 'mine.md'), 'my notes\n');
    const result = await doctor(config, '--fix');
    expect(result.out).not.toContain('created memory_dir');
    expect(readdirSync(path.join(dir, 'memory'))).toEqual(['mine.md']);
    expect(readFileSync(path.join(dir, 'memory', 'mine.md'), 'utf8')).toBe('my notes\n');
  });

  it('a config with a secret written in it is a secrets file: 0600', async () => {
    const { config } = setup('', { inlineKey: true });
    chmodSync(config, 0o644);
    const result = await doctor(config, '--fix');
    expect(result.out).toContain(`+ ${config}: mode 644 → 600 (a secret is written in it)`);
    expect(result.out).not.toContain(SECRET);
    expect(mode(config)).toBe(0o600);
  });

  it('bad usage is exit 2', async () => {
    const { config } = setup();
    const result = await doctor(config, 'now');
    expect(result.code).toBe(2);
    expect(result.err).toContain('familiar doctor');
  });
});

describeDocker('familiar doctor --fix and the sandbox image', () => {
  it('leaves a present image alone, and does not build an image that is not Familiar\'s (a failed check, exit 1)', async () => {
    const present = setup(`tools:\n  sandbox:\n    image: ${TEST_IMAGE}\n`);
    await doctor(present.config, '--fix');
    const quiet = await doctor(present.config, '--fix');
    expect(quiet.out).toContain('+ nothing to fix');
    expect(quiet.out).toContain(`✓ sandbox`);
    const foreign = setup('tools:\n  sandbox:\n    image: someone-else/missing-image:1\n');
    const result = await doctor(foreign.config, '--fix');
    expect(result.code).toBe(1);
    expect(result.out).toContain("✗ could not fix: sandbox image someone-else/missing-image:1 is missing and is not Familiar's (familiar-sandbox): pull or build it yourself");
  });
});
