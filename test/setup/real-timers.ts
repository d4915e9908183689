// Files share their worker (isolate: false in vitest.config.ts). A file that used vitest's fake timers can leave a
// fake clock on the global timer functions after its last test (seen after test/scheduler/scheduler.test.ts: the
// next file's waits never fired); each file starts on Node's own timers again. Node's `timers` module keeps them.
import timers from 'node:timers';

const NAMES = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'] as const;

for (const name of NAMES) {
  if (globalThis[name] !== timers[name]) Object.assign(globalThis, { [name]: timers[name] });
}
