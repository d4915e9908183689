import path from 'node:path';
import type { DoctorLine } from '../part.js';
import type { LoadedConfig } from '../config/load.js';
import { llmConfigured } from '../llm/client.js';
import { privacyChecks } from './private-files.js';
import { platformSection, platformsToStart } from '../channels/platforms.js';

/**
 * What a person needs before the daemon is useful, from the config alone (no network): a config file, an LLM
 * key, a way to talk to it, variables that are set, folders outside Familiar's own, data no other account can
 * reach. `familiar start` logs the lines that are not ok, each with its next step; `familiar doctor` prints them all.
 * Contract: never throws.
 */
export function readinessChecks(loaded: LoadedConfig): DoctorLine[] {
  const { config } = loaded;
  const lines: DoctorLine[] = [];
  if (loaded.source === 'example') {
    lines.push({ status: 'warn', label: 'config', detail: 'no config.yaml: running on config.example.yaml\'s defaults', fix: 'run familiar init to write config.yaml and .env' });
  }
  const configured = loaded.timezoneSource === 'config';
  lines.push({ status: 'ok', label: `timezone: ${config.timezone}`, detail: configured ? 'from the config' : 'the machine\'s (set timezone in the config to change it)' });

  if (!llmConfigured(config.llm)) {
    lines.push({
      status: 'fail', label: 'llm', detail: `no API key for ${config.llm.base_url}${unsetNote(loaded, 'llm.api_key')}`,
      fix: 'run familiar init, or put OPENAI_API_KEY=… in the .env beside config.yaml (a local server such as Ollama needs no key: set llm.base_url)',
    });
  }

  const channels = platformsToStart(config).map((entry) => entry.name);
  if (channels.length === 0) {
    lines.push({
      status: 'warn', label: 'channels', detail: 'no chat channel is configured, so nobody can message this daemon',
      fix: 'run familiar init to set up Telegram, Discord, Signal, Slack or Matrix (or talk in the terminal: familiar chat)',
    });
  }
  for (const name of channels) {
    if ((platformSection(config, name)?.allowed_users.length ?? 0) > 0) continue;
    lines.push({
      status: 'warn', label: `${name}: allowed_users is empty`,
      detail: 'the first person to write to the bot gets a pairing code and no answer',
      fix: 'approve them with familiar pairing approve CODE, or run familiar init to add your user id',
    });
  }

  for (const reference of loaded.source === 'file' ? loaded.unset ?? [] : []) {
    lines.push({
      status: 'warn', label: `${reference.key}: \${${reference.variable}} is not set`,
      detail: `${partOf(reference.key)} is off or incomplete`,
      fix: `put ${reference.variable}=… in ${loaded.envFile ?? path.join(path.dirname(loaded.path), '.env')} (or export it), or remove the key if you do not use that part`,
    });
  }
  for (const move of loaded.relocated ?? []) {
    lines.push({
      status: 'warn', label: `${move.key}: ${move.from} is Familiar's own bundled folder`,
      detail: `using ${move.to} instead (a copy of it, made on first use), so updates never conflict with your edits`,
      fix: `remove ${move.key} from ${loaded.path} to use the default`,
    });
  }
  // The person's data, theirs alone: the data folder, the database, the log, memory, .env.
  lines.push(...privacyChecks(loaded));
  return lines;
}

/** The one-line form for a log: `llm: no API key … — run familiar init …`. */
export function readinessMessage(line: DoctorLine): string {
  return `${line.label}${line.detail ? `: ${line.detail}` : ''}${line.fix ? ` — ${line.fix}` : ''}`;
}

function unsetNote(loaded: LoadedConfig, key: string): string {
  const reference = loaded.unset?.find((entry) => entry.key === key);
  return reference ? ` (llm.api_key is \${${reference.variable}}, which is not set)` : '';
}

function partOf(key: string): string {
  const parts = key.split('.');
  if (parts[0] === 'channels' && parts[1]) return parts[1].charAt(0).toUpperCase() + parts[1].slice(1);
  if (parts[0] === 'tools' && parts[1]) return `the ${parts[1]} tool`;
  return parts[0] ?? key;
}
