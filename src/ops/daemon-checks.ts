import type { LoadedConfig } from '../config/load.js';
import type { Database } from '../db/database.js';
import { errorMessage } from '../errors.js';
import type { DoctorLine, Part } from '../part.js';
import { readinessChecks } from './readiness.js';

/**
 * What `familiar doctor` checks, asked of the running daemon (the console's health page): the config's
 * readiness lines, the database's integrity, the LLM server (one request), and every part's own lines.
 * Contract: never throws; a part whose check throws is a failed line.
 */
export async function daemonChecks(input: { loaded: LoadedConfig; db: Database; parts: readonly Part[] }): Promise<DoctorLine[]> {
  const { loaded } = input;
  const lines: DoctorLine[] = [{ status: 'ok', label: `config: ${loaded.path}`, ...(loaded.envFile !== undefined ? { detail: `with ${loaded.envFile}` } : {}) }];
  lines.push(...readinessChecks(loaded).filter((check) => check.label !== 'llm'));
  try {
    const integrity = input.db.pragma('quick_check', { simple: true });
    lines.push(integrity === 'ok'
      ? { status: 'ok', label: 'database: integrity ok' }
      : { status: 'fail', label: 'database', detail: String(integrity), fix: 'restore from a backup (familiar backup) or move data/familiar.db aside' });
  } catch (error) {
    lines.push({ status: 'fail', label: 'database', detail: errorMessage(error) });
  }
  // The probe uses the OpenAI SDK: loaded only when the checks run.
  const { probeLlm } = await import('../llm/probe.js');
  lines.push(await probeLlm(loaded.config.llm));
  for (const part of input.parts) {
    if (!part.doctor) continue;
    try {
      lines.push(...(await part.doctor()));
    } catch (error) {
      lines.push({ status: 'fail', label: part.name, detail: errorMessage(error) });
    }
  }
  return lines;
}
