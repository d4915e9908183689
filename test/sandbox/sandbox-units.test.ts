// Pure parts of the sandbox: the capped demultiplexer, globs, docker_host parsing, output formatting, workspace paths and sizes.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { dockerOptions } from '../../src/sandbox/docker-client.js';
import { CappedBuffer, Demuxer } from '../../src/sandbox/exec.js';
import { formatRun, shellQuote } from '../../src/sandbox/tools.js';
import { globMatcher } from '../../src/workspace/walk.js';
import { imageBytes } from '../../src/workspace/volumes.js';
import { fullMessage, nearlyFull, splitWorkspacePath } from '../../src/workspace/workspace-files.js';
import { parseSandboxUser } from '../../src/workspace/workspace.js';
import { tempDir } from '../helpers/app.js';

function frame(stream: 1 | 2, payload: string): Buffer {
  const body = Buffer.from(payload);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

describe('Demuxer', () => {
  it('splits frames into stdout and stderr even when chunks cut headers and payloads', () => {
    const wire = Buffer.concat([frame(1, 'hello '), frame(2, 'oops'), frame(1, 'world')]);
    const demuxer = new Demuxer(1024);
    for (let offset = 0; offset < wire.length; offset += 3) demuxer.push(wire.subarray(offset, offset + 3));
    expect(demuxer.stdout.text()).toBe('hello world');
    expect(demuxer.stderr.text()).toBe('oops');
  });

  it('keeps only the cap of each stream but counts every byte', () => {
    const demuxer = new Demuxer(10);
    for (let index = 0; index < 1000; index += 1) demuxer.push(frame(1, 'x'.repeat(100)));
    demuxer.push(frame(2, 'short'));
    expect(demuxer.stdout.text()).toBe('x'.repeat(10));
    expect(demuxer.stdout.total).toBe(100_000);
    expect(demuxer.stdout.dropped).toBe(99_990);
    expect(demuxer.stderr.text()).toBe('short');
  });
});

describe('globMatcher', () => {
  it.each([
    ['*.py', 'a.py', true], ['*.py', 'src/deep/a.py', true], ['*.py', 'a.pyc', false],
    ['src/*.ts', 'src/a.ts', true], ['src/*.ts', 'src/x/a.ts', false], ['src/**/*.ts', 'src/a.ts', true],
    ['src/**/*.ts', 'src/x/y/a.ts', true], ['**/*.{md,txt}', 'a/b.txt', true], ['?.js', 'ab.js', false],
    ['[ab].js', 'b.js', true], ['[!ab].js', 'c.js', true], ['a.b', 'axb', false],
  ])('%s against %s is %s', (pattern, candidate, expected) => {
    expect(globMatcher(pattern).test(candidate)).toBe(expected);
  });
});

describe('dockerOptions', () => {
  it('parses the docker_host forms', () => {
    expect(dockerOptions(undefined)).toBeUndefined();
    expect(dockerOptions('unix:///run/docker.sock')).toMatchObject({ socketPath: '/run/docker.sock' });
    expect(dockerOptions('tcp://10.0.0.5:2375')).toEqual({ host: '10.0.0.5', port: '2375', protocol: 'http' });
    expect(dockerOptions('https://docker.lan')).toEqual({ host: 'docker.lan', port: '2376', protocol: 'https' });
    expect(dockerOptions('ssh://me@box')).toEqual({ host: 'box', port: '22', protocol: 'ssh', username: 'me' });
  });
});

describe('formatRun', () => {
  const buffer = (text: string, cap = 1000) => {
    const captured = new CappedBuffer(cap);
    captured.push(Buffer.from(text));
    return captured;
  };
  const base = { exitCode: 0, timedOut: false, cancelled: false, oomKilled: false };

  it('keeps stderr visible when stdout is huge', () => {
    const result = formatRun({ ...base, exitCode: 1, stdout: buffer('o'.repeat(5000), 5000), stderr: buffer('the real error') }, { timeoutS: 5, memoryMb: 256, budget: 900 });
    expect(result.success).toBe(false);
    expect(result.output).toContain('--- stderr (14 bytes) ---\nthe real error');
    expect(result.output).toMatch(/stdout truncated: \d+ of 5000 bytes not shown/);
    expect(result.output.length).toBeLessThan(1300);
  });

  it('explains an exit without a code', () => {
    expect(formatRun({ ...base, exitCode: null, stdout: buffer(''), stderr: buffer('') }, { timeoutS: 5, memoryMb: 256, budget: 900 }).output).toMatch(/^no exit code/);
  });
});

describe('small helpers', () => {
  it('quotes for the shell and parses the sandbox user', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(parseSandboxUser('1000')).toEqual({ uid: 1000, gid: 1000 });
    expect(parseSandboxUser('1000:100')).toEqual({ uid: 1000, gid: 100 });
    expect(parseSandboxUser('familiar')).toBeUndefined();
  });
});

describe('splitWorkspacePath', () => {
  it.each([
    ['src/app.py', ['src', 'app.py']],
    ['./a//b/', ['a', 'b']],
    ['a\\b.txt', ['a', 'b.txt']],
    ['.', []],
    ['', []],
  ])('splits %j into names', (requested, names) => {
    expect(splitWorkspacePath(requested)).toEqual({ success: true, value: names });
  });

  it.each([['../x'], ['a/../../x'], ['/etc/passwd'], ['~/.ssh/id_rsa'], ['C:/x'], ['a\u0000b']])('refuses %j', (requested) => {
    expect(splitWorkspacePath(requested).success).toBe(false);
  });
});

describe('workspace size', () => {
  it('sizes an image so that about the limit is free after ext4 metadata', () => {
    expect(imageBytes(64)).toBe((64 + 2 + 8) * 1024 * 1024);
    expect(imageBytes(1024)).toBe((1024 + 31 + 8) * 1024 * 1024);
  });

  it('says how full, and how to fix it', () => {
    const usage = { usedBytes: 63.2 * 1024 * 1024, limitBytes: 64 * 1024 * 1024, availableBytes: 0.8 * 1024 * 1024 };
    expect(fullMessage(usage)).toBe('the workspace is full (64 MB of 64 MB); delete files or raise tools.sandbox.workspace_mb');
    expect(nearlyFull(usage)).toBe(true);
    expect(nearlyFull({ ...usage, availableBytes: 10 * 1024 * 1024 })).toBe(false);
  });

  it('accepts workspace_mb 0 or at least 32, and says so otherwise', () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'tools:\n  sandbox:\n    workspace_mb: 10\n');
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/tools\.sandbox\.workspace_mb.*use 0 \(no limit\) or at least 32/s);
    writeFileSync(file, 'tools:\n  sandbox:\n    workspace_mb: 0\n');
    expect(loadConfig({ configPath: file, env: {} }).config.tools.sandbox?.workspace_mb).toBe(0);
    writeFileSync(file, 'tools:\n  sandbox: {}\n');
    expect(loadConfig({ configPath: file, env: {} }).config.tools.sandbox?.workspace_mb).toBe(1024);
  });
});
