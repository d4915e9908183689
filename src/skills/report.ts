import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolRegistry } from '../registry/registry.js';

/** Looks a tool up by name (the registry). */
export type ToolLookup = Pick<ToolRegistry, 'get'>;
import type { Skill } from './format.js';

/** What a skill contains and asks for, shown before anyone activates it. */
export interface SkillReport {
  files: string[];
  scripts: string[];
  tools: Array<{ name: string; note?: string }>;
  network: { declared: boolean; hints: string[] };
  test: string | undefined;
  trigger: string;
}

const NETWORK_HINTS: readonly RegExp[] = [
  /https?:\/\/[^\s'"`)]+/g,
  /\b(curl|wget|nc|ncat|ssh|scp)\b/g,
  /\b(requests|urllib|http\.client|socket|aiohttp|httpx)\b/g,
  /\b(fetch|XMLHttpRequest|axios|node:http|node:https|node:net)\b/g,
];

/**
 * Describes a skill folder without running anything: its files, its scripts, the tools it wants
 * (flagging high-risk, unknown and wildcard ones) and signs that its scripts reach the network.
 */
export function buildReport(skill: Skill, dir: string, files: readonly string[], tools: ToolLookup | undefined): SkillReport {
  const scripts = files.filter((file) => file.startsWith('scripts/'));
  const hints = new Set<string>();
  for (const file of scripts) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, file), 'utf8').slice(0, 200_000);
    } catch {
      continue;
    }
    for (const pattern of NETWORK_HINTS) {
      for (const match of text.matchAll(pattern)) {
        hints.add(`${file}: ${match[0].slice(0, 80)}`);
        if (hints.size >= 12) break;
      }
    }
  }
  return {
    files: [...files],
    scripts,
    tools: skill.tools.map((name) => ({ name, ...toolNote(name, tools) })),
    network: { declared: skill.network, hints: [...hints] },
    test: skill.test,
    trigger: skill.trigger.type === 'cron' ? `cron ${skill.trigger.cron ?? ''}${skill.trigger.timezone ? ` (${skill.trigger.timezone})` : ''}` : 'manual',
  };
}

function toolNote(name: string, tools: ToolLookup | undefined): { note?: string } {
  if (name.startsWith('!')) return { note: 'excluded' };
  if (name.includes('*')) return { note: 'a pattern: every matching tool, present and future' };
  // Without the registry (a read-only command) nothing is known about availability or risk.
  if (!tools) return {};
  const entry = tools.get(name);
  if (!entry) return { note: 'not available here (not configured or unknown)' };
  const risk = entry.tool.risk;
  if (risk === 'high') return { note: 'high-risk: asks for approval' };
  if (typeof risk === 'function') return { note: 'high-risk for some uses: asks for approval then' };
  return {};
}

export function formatReport(report: SkillReport): string {
  const lines = [
    `  trigger: ${report.trigger}`,
    `  tools requested: ${report.tools.length === 0 ? 'none' : report.tools.map((tool) => (tool.note ? `${tool.name} (${tool.note})` : tool.name)).join(', ')}`,
    `  scripts: ${report.scripts.length === 0 ? 'none' : `${report.scripts.join(', ')} (run only in the sandbox)`}`,
    `  test: ${report.test ?? 'none'}`,
    `  network: ${report.network.declared ? 'declared (network: true)' : 'not declared'}${report.network.hints.length > 0 ? `; the scripts mention: ${report.network.hints.join('; ')}` : ''}`,
    `  files: ${report.files.join(', ')}`,
  ];
  return lines.join('\n');
}
