// Vitest entry of bench/agentdojo.mjs (not a test: vitest runs it so the harness can build on the test helpers,
// makeTestApp, the fakes and the mail servers, as the tests do). Options come as JSON in AGENTDOJO_OPTIONS; each
// result is appended to AGENTDOJO_OUT as one JSON line as it comes, and the report is written to AGENTDOJO_OUT.report.json.
import { appendFileSync, writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { TEST_IMAGE } from '../../test/helpers/docker.js';
import { runBench, type BenchOptions } from './harness/bench.js';

it('runs the AgentDojo port', async () => {
  const out = process.env.AGENTDOJO_OUT;
  if (!out) throw new Error('AGENTDOJO_OUT is not set: run bench/agentdojo.mjs');
  const options = { sandboxImage: TEST_IMAGE, ...(JSON.parse(process.env.AGENTDOJO_OPTIONS ?? '{}') as Omit<BenchOptions, 'sandboxImage'>) };
  writeFileSync(out, '');
  const report = await runBench(options, (result) => appendFileSync(out, `${JSON.stringify(result)}\n`));
  writeFileSync(`${out}.report.json`, JSON.stringify(report));
}, 24 * 3_600_000);
