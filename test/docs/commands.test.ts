import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { findCommand } from '../../src/cli/spec.js';
import { captureIo } from '../helpers/io.js';
import { docFiles, shellLinesOf } from './markdown.js';

// What a person types from the README, the getting-started page and the operations pages must exist: each
// `familiar …` (also as `npm run familiar -- …` and `node dist/main.js …`) in their shell blocks answers --help.
const PAGES = /^(README\.md|docs\/getting-started\.md|docs\/operations\/.+\.md)$/;
const INVOCATION = /(?:^|[\s;&|(])(?:npm run familiar --|node dist\/main\.js|familiar(?!\s+node\b))\s+([a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?/g;

/** The command words of every invocation in the pages: `["jobs", "add"]`, `["doctor"]`, … with where they were. */
function invocations(): Array<{ where: string; words: string[] }> {
  const found: Array<{ where: string; words: string[] }> = [];
  for (const file of docFiles().filter((candidate) => PAGES.test(candidate.name))) {
    for (const line of shellLinesOf(file)) {
      const code = line.replace(/(^|\s)#.*$/, '');
      for (const match of code.matchAll(INVOCATION)) {
        const [first = '', second] = [match[1], match[2]];
        // A second word counts when the first has subcommands (`jobs add`), not when it is an argument (`completion bash`).
        const words = second !== undefined && (findCommand([first])?.commands?.length ?? 0) > 0 ? [first, second] : [first];
        found.push({ where: `${file.name}: ${line.trim()}`, words });
      }
    }
  }
  return found;
}

describe('the commands the docs show', () => {
  it('are found in the README, getting started and every operations page', () => {
    const where = new Set(invocations().map((entry) => entry.where.split(':')[0]));
    expect([...where].sort()).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/operations/README.md', 'docs/operations/backup-and-restore.md', 'docs/operations/docker.md', 'docs/operations/systemd.md', 'docs/operations/upgrade.md']));
  });

  it('all exist: familiar … --help succeeds for each', async () => {
    const failed: string[] = [];
    const seen = new Set<string>();
    for (const { where, words } of invocations()) {
      if (seen.has(words.join(' '))) continue;
      seen.add(words.join(' '));
      const io = captureIo();
      const code = await runCli([...words, '--help'], io);
      if (code !== 0) failed.push(`${where} → familiar ${words.join(' ')} --help exits ${code}: ${io.err().trim()}`);
    }
    expect(failed).toEqual([]);
    expect(seen.size).toBeGreaterThan(10);
  });
});
