import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeSkill(dir: string, id: string, text: string, files: Record<string, string> = {}): void {
  const folder = path.join(dir, 'skills', id);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'SKILL.md'), text);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(folder, name)), { recursive: true });
    writeFileSync(path.join(folder, name), content);
  }
}

export function skillMd(fields: { name?: string; status?: string; trigger?: string; tools?: string; extra?: string; body?: string } = {}): string {
  return [
    '---',
    `name: ${fields.name ?? 'Echo things'}`,
    'description: Echoes a greeting.',
    'version: 1.0.0',
    `status: ${fields.status ?? 'active'}`,
    `trigger: ${fields.trigger ?? '{type: manual}'}`,
    `tools: ${fields.tools ?? '[echo]'}`,
    ...(fields.extra ? [fields.extra] : []),
    '---',
    '',
    fields.body ?? 'Call echo with the text "hello" and report what it said.',
    '',
  ].join('\n');
}
