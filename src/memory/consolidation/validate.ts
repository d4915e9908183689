import { chunkMarkdown } from '../search/chunks.js';
import { failure, succeed, type Result } from '../../lib/result.js';

export interface ProposedFile {
  path: string;
  content: string;
}

export interface ProposalCheck {
  /** Every file the model was shown, as it read them (folder-relative path → content). */
  before: ReadonlyMap<string, string>;
  /** The files the model would write. */
  files: readonly ProposedFile[];
  /** Whether a path may be written: the person's own file (not labelled outside content), inside the folder, Markdown. */
  writable: (path: string) => Result<undefined>;
}

/**
 * The rule that makes consolidation safe: nothing is lost. Every entry (list item or paragraph) of every file the
 * model was shown must still be there afterwards, word for word (spacing and the list bullet aside), in some file:
 * merged duplicates keep one copy, dated facts move to a log, an outdated fact stays as a line marked
 * "superseded by …". A summary is added beside its sources, never instead of them. Only the person's own files may be
 * written: a path labelled as outside content is refused, so nothing outside content wrote is ever promoted.
 */
export function validateProposal(check: ProposalCheck): Result {
  const seen = new Set<string>();
  for (const file of check.files) {
    if (seen.has(file.path)) return failure(`the proposal writes ${file.path} twice`);
    seen.add(file.path);
    const allowed = check.writable(file.path);
    if (!allowed.success) return failure(`the proposal writes ${file.path}: ${allowed.error}`);
  }
  const after = new Map(check.before);
  for (const file of check.files) after.set(file.path, file.content);
  const kept = [...after.values()].map(normalised).join('\n');
  const lost: string[] = [];
  for (const [path, content] of check.before) {
    for (const chunk of chunkMarkdown(content)) {
      if (!kept.includes(normalised(chunk.text))) lost.push(`${path}#L${chunk.startLine}-L${chunk.endLine}: ${chunk.text.slice(0, 80)}`);
    }
  }
  if (lost.length > 0) return failure(`the proposal loses ${lost.length} entr${lost.length === 1 ? 'y' : 'ies'} (keep each, or mark it "superseded by …"): ${lost.slice(0, 5).join('; ')}`);
  return succeed(undefined);
}

/** Text compared without its list bullet and with spacing collapsed: moving an entry into a list or out of one keeps it. */
function normalised(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ');
}
