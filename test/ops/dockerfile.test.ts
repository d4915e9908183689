import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import dockerignoreModule from '@balena/dockerignore';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/folders.js';

// scripts/verify-docker-image.sh builds the image for real (minutes: .ci/run runs it when the time budget allows);
// this catches in a second the mistakes that broke every build: a file the build reads left out of the context.
const read = (file: string): string => readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');
// The package is CommonJS (module.exports = the factory) but its types say `export default`.
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;
const ignore = dockerignore().add(read('.dockerignore').split('\n'));
const tracked = execFileSync('git', ['ls-files'], { cwd: PACKAGE_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const under = (entry: string): string[] => tracked.filter((file) => file === entry || file.startsWith(`${entry.replace(/\/$/, '')}/`));

/** What the build reads from the context: the Dockerfile's own COPY sources, what the run stage takes from /build, and the build script's files. */
function buildInputs(): string[] {
  const dockerfile = read('Dockerfile');
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => (match[1] ?? '').split(/\s+/)).filter((source) => source !== '.');
  const fromBuild = [...dockerfile.matchAll(/^COPY --from=build (.+) \S+$/gm)]
    .flatMap((match) => (match[1] ?? '').split(/\s+/))
    .map((source) => source.replace(/^\/build\//, ''))
    .filter((source) => source !== 'node_modules' && source !== 'dist');
  const build = (JSON.parse(read('package.json')) as { scripts: { build: string } }).scripts.build;
  const scripts = [...build.matchAll(/(?:tsc -p|node) (\S+)/g)].map((match) => match[1] ?? '');
  const configs = scripts.filter((file) => file.endsWith('.json')).flatMap((file) => extendsChain(file));
  return [...new Set([...copied, ...fromBuild, ...scripts, ...configs, 'src'])];
}

/** A tsconfig file and the ones it extends. */
function extendsChain(file: string): string[] {
  const parent = (JSON.parse(read(file)) as { extends?: string }).extends;
  return [file, ...(parent ? extendsChain(path.normalize(parent)) : [])];
}

describe('the Dockerfile and .dockerignore', () => {
  it('let through every file the build reads', () => {
    const inputs = buildInputs();
    expect(inputs).toEqual(expect.arrayContaining(['patches', 'assets', 'tsconfig.sdk.json', 'scripts/bundle.mjs', 'memory', 'skills']));
    const missing = inputs.filter((entry) => under(entry).length === 0);
    expect(missing, 'named by the build but not in git').toEqual([]);
    const ignored = inputs.flatMap(under).filter((file) => ignore.ignores(file));
    expect(ignored).toEqual([]);
  });

  it('keep the person\'s files and the dependencies out of the image', () => {
    for (const file of ['config.yaml', '.env', 'data/familiar.db', 'node_modules/zod/package.json', 'dist/main.js', 'test/ops/dockerfile.test.ts']) {
      expect(ignore.ignores(file), file).toBe(true);
    }
  });

  it('take the Node major version as one build argument, for both stages', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^ARG NODE_MAJOR=\d+$/m);
    expect(dockerfile.match(/^FROM .*$/gm)).toEqual([
      'FROM ${BUILD_IMAGE:-node:${NODE_MAJOR}-bookworm} AS build',
      'FROM ${NODE_IMAGE:-node:${NODE_MAJOR}-bookworm-slim}',
    ]);
  });
});
