/**
 * `familiar tools new NAME [--script]`: a working example in `tools_dir` with a test beside it, and a link
 * `node_modules/familiar` → this installation, so that the test (`node --test`) and the editor (types,
 * autocompletion) find `import … from 'familiar'` as the daemon does. Never overwrites a file.
 */
import { existsSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config/folders.js';
import { failure, succeed, type Result } from '../lib/result.js';
import { TOOL_NAME } from './check-definition.js';

export interface Scaffolded {
  files: string[];
  /** Made now: the link that lets tests and editors import `familiar`. */
  link?: string;
}

export function scaffoldTool(dir: string, name: string, kind: 'module' | 'script'): Result<Scaffolded> {
  if (!TOOL_NAME.test(name)) return failure(`"${name}" is not a tool name: use 1-64 letters, digits, _ or - (e.g. lamp_toggle)`);
  const files: Record<string, { text: string; mode?: number }> = kind === 'module'
    ? { [`${name}.mjs`]: { text: moduleTemplate(name) }, [`${name}.test.mjs`]: { text: moduleTestTemplate(name) } }
    : {
      [`${name}.yaml`]: { text: specTemplate(name) },
      [`${name}.py`]: { text: scriptTemplate(), mode: 0o755 },
      [`${name}.test.mjs`]: { text: scriptTestTemplate(name) },
    };
  const taken = Object.keys(files).filter((file) => existsSync(path.join(dir, file)));
  if (taken.length > 0) return failure(`${taken.map((file) => path.join(dir, file)).join(', ')} already exist${taken.length > 1 ? '' : 's'}; pick another name or remove ${taken.length > 1 ? 'them' : 'it'}`);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, { text, mode }] of Object.entries(files)) {
    const target = path.join(dir, file);
    writeFileSync(target, text, { flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    written.push(target);
  }
  const link = linkSdk(dir);
  return succeed({ files: written, ...(link ? { link } : {}) });
}

/** `node_modules/familiar` in the tools folder, unless something is there already. */
function linkSdk(dir: string): string | undefined {
  const link = path.join(dir, 'node_modules', 'familiar');
  try {
    lstatSync(link);
    return undefined;
  } catch {
    // Not there yet.
  }
  try {
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(PACKAGE_ROOT.replace(/[/\\]$/, ''), link, 'dir');
    return link;
  } catch {
    return undefined;
  }
}

function moduleTemplate(name: string): string {
  return `// @ts-check
// ${name}: a tool of your own for Familiar. It runs inside the daemon, with the daemon's full rights.
// Try it:   familiar tools test ${name} '{"text": "hello"}'
// Its test: node --test ${name}.test.mjs
// The daemon picks up a change to this file by itself (or at the next start).
import { defineTool } from 'familiar';

export default defineTool({
  // What the model sees (seed 001's shape; name, description and parameters beside execute work too).
  schema: {
    name: '${name}',
    // The model reads this to decide when to call the tool: say what it does and what it returns.
    description: 'Echoes a text back, in capitals. Returns the text.',
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'what to echo' },
      },
      required: ['text'],
      additionalProperties: false,
    },
  },
  // What a call can do beyond answering. [] says it sends nothing anywhere; leave it out if it may (a tool that
  // declares nothing is treated as able to send data anywhere). risk: 'high' would ask the person before each call.
  effects: [],
  /**
   * @param {{ text: string }} params  checked against \`parameters\` before this runs
   * @param {import('familiar').CustomToolContext} ctx  the call: ctx.settings (tools.settings.${name}), ctx.signal, ctx.log,
   *   ctx.input (the person's text), ctx.state (shared by this turn's calls), ctx.cancel(reason)
   */
  async execute(params, ctx) {
    ctx.log.debug({ length: params.text.length }, '${name} called');
    // Return text (a success), { success: false, error: 'what went wrong; what to do' }, or any JSON value.
    return params.text.toUpperCase();
  },
});
`;
}

function moduleTestTemplate(name: string): string {
  return `// Run: node --test ${name}.test.mjs   (Familiar does not load *.test.* files as tools)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import tool from './${name}.mjs';

/** The little of a call's context this tool uses. */
const ctx = /** @type {any} */ ({ settings: {}, signal: AbortSignal.timeout(5000), log: { debug() {}, info() {}, warn() {} }, emit() {} });

test('${name} echoes in capitals', async () => {
  assert.equal(await tool.execute({ text: 'hello' }, ctx), 'HELLO');
});
`;
}

function specTemplate(name: string): string {
  return `# ${name}: a script tool for Familiar. The arguments arrive as JSON on stdin; what the script prints is the
# result (exit 0: success; otherwise a failure, with its stderr). It runs in the conversation's sandbox, in
# /workspace, without network. On the host only if config.yaml says tools.scripts.${name}.host: true.
# Try it:   familiar tools test ${name} '{"text": "one two three"}'
# Its test: node --test ${name}.test.mjs
description: Counts the words in a text. Returns the count.
parameters:
  type: object
  properties:
    text: { type: string, description: the text to count }
  required: [text]
  additionalProperties: false
risk: low          # high: the person is asked before each call
timeout_s: 30
effects: []        # the sandbox has no network: a call sends nothing anywhere
# script: ${name}.py   # default: the one file beside this one named ${name}.<something>
`;
}

function scriptTemplate(): string {
  return `#!/usr/bin/env python3
# The arguments as JSON on stdin; print the result.
import json
import sys

args = json.load(sys.stdin)
words = len(args["text"].split())
print(f"{words} word(s)")
`;
}

function scriptTestTemplate(name: string): string {
  return `// Run: node --test ${name}.test.mjs   (runs the script here, as the sandbox would: JSON on stdin)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./${name}.py', import.meta.url));

test('${name} counts words', () => {
  const output = execFileSync('python3', [script], { input: JSON.stringify({ text: 'one two three' }) }).toString();
  assert.equal(output.trim(), '3 word(s)');
});
`;
}
