// Programs the command-line tests run for real (zsh, fish, systemd-analyze): a `describe` that skips without them
// (or, in CI, fails). Set-up: `npm test` installs them (test/setup/global-setup.ts runs scripts/setup-cli-tools.sh).
import { existsSync } from 'node:fs';
import { describe, inject, it } from 'vitest';
import { CLI_TOOLS } from '../setup/parts.js';

const inCI = process.env.CI === 'true';
const warned = new Set<string>();

/** `describe` for tests that run `tool` (a key of CLI_TOOLS). */
export function describeWithTool(tool: string, name: string, fn: () => void): void {
  const file = CLI_TOOLS[tool];
  const available = file !== undefined && existsSync(file);
  if (!available && inCI) {
    describe(name, () => {
      it(`needs ${tool}`, () => {
        throw new Error(`${tool} is required in CI but not installed (${file ?? 'unknown tool'}): run scripts/setup-cli-tools.sh`);
      });
    });
    return;
  }
  // The global set-up already printed one line for what it could not provide.
  if (!available && !warned.has(tool) && inject('familiarSetupSkipped').length === 0) {
    warned.add(tool);
    console.warn(`[${tool} tests skipped] ${tool} is not installed; run: sudo bash scripts/setup-cli-tools.sh`);
  }
  describe.skipIf(!available)(name, fn);
}
