import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Runs only the AgentDojo port (bench/agentdojo.mjs starts it), with the tests' global set-up (Docker, mail).
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['bench/agentdojo/run-suites.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    hookTimeout: 120_000,
  },
});
