// The custom tools part on its own, with a real registry, event bus and audit (SQLite on disk), over a tools folder
// outside the checkout (a temp dir), as a person's folder would be.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createAuditWriter } from '../../src/audit/write.js';
import { resolveFolders } from '../../src/config/folders.js';
import { validateConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createCustomToolsPart, type CustomTools } from '../../src/custom-tools/part.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { EventBus } from '../../src/tools/events.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { CallOutcome, CallRequest } from '../../src/tools/call.js';
import type { ToolContext } from '../../src/tools/types.js';
import { realGate } from '../helpers/gate.js';
import { captureLogger, tempDir } from '../helpers/app.js';

export interface Harness {
  dir: string;
  toolsDir: string;
  config: Config;
  registry: ToolRegistry;
  events: EventBus;
  custom: CustomTools;
  db: Database;
  logs: string[];
  call(name: string, args?: CallRequest['arguments'], extra?: Partial<CallRequest>): Promise<CallOutcome>;
  /** Log lines (parsed) whose message contains `text`. */
  logged(text: string): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Writes files into a tools folder (made if needed). */
export function writeTools(toolsDir: string, files: Record<string, string>): void {
  mkdirSync(toolsDir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(toolsDir, name)), { recursive: true });
    writeFileSync(path.join(toolsDir, name), text);
  }
}

export async function makeHarness(files: Record<string, string> = {}, overrides: Record<string, unknown> = {}, options: { mode?: 'daemon' | 'command'; sandboxReady?: boolean; secrets?: string[]; setup?: (registry: ToolRegistry) => void } = {}): Promise<Harness> {
  const dir = tempDir('familiar-custom-');
  const toolsDir = path.join(dir, 'my-tools');
  writeTools(toolsDir, files);
  const config = validateConfig({ timezone: 'Europe/Paris', data_dir: './data', tools_dir: './my-tools', ...overrides });
  resolveFolders(config, dir);
  mkdirSync(config.data_dir, { recursive: true });
  const db = openDatabase(config.data_dir);
  const logs: string[] = [];
  const secrets = options.secrets ?? [];
  const log = captureLogger(logs, secrets);
  const events = new EventBus(log);
  // As the daemon wires it: in a tainted turn the gate reads each call's declared effects.
  const registry = new ToolRegistry({ audit: createAuditWriter(db), events });
  registry.setGate(realGate({ registry, config, db, log, secrets }));
  registry.setContext({ config, log, secrets, memory: {} as ToolContext['memory'], scheduler: {} as ToolContext['scheduler'] });
  options.setup?.(registry);
  const custom = await createCustomToolsPart({ config, log, registry, events, sandboxReady: options.sandboxReady ?? false, mode: options.mode ?? 'command' });
  return {
    dir, toolsDir, config, registry, events, custom, db, logs,
    // The person at the terminal says yes to a high-risk call unless a test brings its own answer.
    call: (name, args = {}, extra = {}) => registry.execute({ name, arguments: args, conversationId: 'c1', turnId: 't1', origin: { channel: 'cli', chatId: 'x' }, approve: async () => ({ approved: true, by: 'the test' }), ...extra }),
    logged: (text) => logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => String(line.msg).includes(text)),
    async close() {
      await custom.part.stop?.();
      db.close();
    },
  };
}

export function auditRows(db: Database): Array<{ tool: string; input: string; output: string; success: number; requested_input: string | null }> {
  return db.prepare('SELECT tool, input, output, success, requested_input FROM audit ORDER BY id').all() as Array<{ tool: string; input: string; output: string; success: number; requested_input: string | null }>;
}
