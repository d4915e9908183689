import vm from 'node:vm';
import { errorMessage } from '../errors.js';
import { fail, ok, type AnyTool, type ToolResult } from '../tools/types.js';
import type { PinnedDir } from '../workspace/pinned-dir.js';
import { globMatcher, walk, type WalkEntry } from '../workspace/walk.js';
import { PARTIAL, WORKSPACE_TOOL, type InWorkspace, type Target } from './file-workspace.js';

const MAX_RESULTS = 200;
const GREP_FILE_BYTES = 5_000_000;
const GREP_FILE_MS = 1000;
// The model's regular expression runs in a vm context with a timeout: a catastrophic pattern such as
// (a+)+$ would otherwise block the daemon's event loop, and no deadline can interrupt synchronous code.
const MATCH_LINES = new vm.Script('(() => { const hits = []; for (let i = 0; i < lines.length; i += 1) if (re.test(lines[i])) hits.push(i); return hits; })()');

interface GrepParams {
  pattern: string;
  path?: string;
  include?: string;
}

/**
 * What one search has found so far: the lines shown, how many more matched, and the file the pattern was too slow
 * on; and the one vm context its files are matched in (making a context costs milliseconds, so one per file made a
 * search over a few thousand files take many seconds).
 */
interface Found {
  lines: string[];
  more: number;
  slow: string | undefined;
  context: vm.Context;
}

/** The `grep` tool: a regular expression over the workspace's files, each file searched under a time limit. */
export function createGrepTool(inWorkspace: InWorkspace): AnyTool {
  return {
    name: 'grep',
    ...WORKSPACE_TOOL,
    description: 'Search workspace files for a regular expression (JavaScript syntax). Returns "file:line: text". `include` limits the files by glob, e.g. "*.py".',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1 },
        path: { type: 'string', description: 'file or folder relative to the workspace; default the whole workspace' },
        include: { type: 'string', description: 'glob for the files to search, e.g. "*.{ts,js}"' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    async execute(params: GrepParams, ctx) {
      let regex: RegExp;
      try {
        regex = new RegExp(params.pattern);
      } catch (error) {
        return fail(`The pattern is not a valid regular expression (${errorMessage(error)}); escape special characters such as ( [ . * with a backslash.`);
      }
      return inWorkspace(ctx, params.path ?? '.', 'search', false, (target) => grepTarget(target, regex, params));
    },
  };
}

/** Searches the file or the folder the call names and words what it found. */
async function grepTarget({ files, names, relative }: Target, regex: RegExp, params: GrepParams): Promise<ToolResult> {
  const include = params.include ? globMatcher(params.include) : undefined;
  const info = await files.lstat(names);
  if (!info) return fail(`${relative} does not exist.`);
  const found: Found = { lines: [], more: 0, slow: undefined, context: vm.createContext({ lines: [], re: regex }) };
  const search = (dir: PinnedDir, name: string, shownAs: string): Promise<void> =>
    found.slow !== undefined || (include && !include.test(shownAs)) ? Promise.resolve() : searchFile(dir, name, shownAs, found);
  let truncated = false;
  if (info.isDirectory()) {
    const prefix = relative === '.' ? '' : `${relative}/`;
    const walked = await files.withFolder(names, (dir) => walk(dir, { onFile: (parent, name, entry: WalkEntry) => search(parent, name, `${prefix}${entry.relative}`) }));
    truncated = walked.truncated;
  } else {
    await files.inParent(names, false, (dir, name) => search(dir, name, relative));
  }
  const { lines, more, slow } = found;
  if (slow !== undefined) return fail(`The pattern took too long on ${slow} (it backtracks too much); simplify it, e.g. avoid nested quantifiers like (a+)+.`);
  if (lines.length === 0) return ok(`No line matches /${params.pattern}/.${truncated ? ` ${PARTIAL}` : ''}`);
  if (more > 0) lines.push(`(${more} more matching lines not shown; narrow the pattern, path or include)`);
  if (truncated) lines.push(PARTIAL);
  return ok(lines.join('\n'));
}

/** Searches one file; FIFOs, links, hard-linked and oversized files are skipped, as unreadable ones. */
async function searchFile(dir: PinnedDir, name: string, shownAs: string, found: Found): Promise<void> {
  let data: Buffer;
  try {
    data = await dir.readFile(name, GREP_FILE_BYTES);
  } catch {
    return;
  }
  if (data.subarray(0, 8000).includes(0)) return;
  const text = data.toString('utf8').split('\n');
  let hits: number[];
  try {
    found.context.lines = text;
    hits = MATCH_LINES.runInContext(found.context, { timeout: GREP_FILE_MS }) as number[];
  } catch {
    found.slow = shownAs;
    return;
  }
  for (const index of hits) {
    const line = text[index] ?? '';
    if (found.lines.length >= MAX_RESULTS) {
      found.more += 1;
      continue;
    }
    found.lines.push(`${shownAs}:${index + 1}: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  }
}
