import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts what the Docker and mail suites need (or says what to install): test/setup/global-setup.ts.
    globalSetup: ['test/setup/global-setup.ts'],
    setupFiles: ['test/setup/real-timers.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Files in one worker share its module cache: each file importing the daemon afresh cost more CPU than most
    // files' tests (60 short files: 213 s of CPU isolated, 132 s not). Nothing in src/ keeps module state (STYLE.md:
    // no module singletons), and a file that changes globals (fake timers) puts them back in its own hooks.
    isolate: false,
    // Docker and mail tests share one engine and one mail server; files run in parallel up to the core count.
    maxWorkers: 2,
    // Tool modules (src/custom-tools/module-hooks.ts) are imported by Node itself, as in the daemon, so that Node's
    // module hooks map `familiar` to the SDK and compile .ts; Vite would resolve them on its own otherwise.
    server: { deps: { external: [/[?&]familiar-tool=/] } },
  },
});
