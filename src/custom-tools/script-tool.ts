/**
 * Script tools: `NAME.yaml` beside a script. The YAML says what the model sees (name, description, JSON Schema
 * parameters), the risk, the deadline and where it runs; the script gets the arguments as JSON on stdin and its
 * stdout is the result (exit 0: success; otherwise a failure with its stderr).
 * By default it runs in the conversation's sandbox container (in /workspace, no network unless the YAML asks and the
 * sandbox allows it). On the host only when config.yaml says so for that one tool (`tools.scripts.NAME.host: true`),
 * with a clean environment: no secret of the daemon's, only `tools.scripts.NAME.env`.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod/v3';
import type { Config } from '../config/schema.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { Effect } from '../tools/effects.js';
import { workspaceIdOf, type AnyTool } from '../tools/types.js';
import { checkEffects, checkName, checkParameters } from './check-definition.js';
import { runOnHost } from './run-host.js';
import { runInSandbox, SANDBOX_SCRIPT_MAX_BYTES } from './run-sandbox.js';

const specSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {}, additionalProperties: false }),
  /** The script, relative to the YAML's folder; default: the one file beside it named NAME.<something>. */
  script: z.string().optional(),
  risk: z.enum(['low', 'high']).optional(),
  timeout_s: z.number().positive().max(3600).default(30),
  /** `host` marks a script that only makes sense on the host; it still needs tools.scripts.NAME.host in config. */
  runs_on: z.enum(['sandbox', 'host']).default('sandbox'),
  /** Sandbox only: run with network (needs tools.sandbox.allow_network). */
  network: z.boolean().default(false),
  effects: z.array(z.record(z.string(), z.unknown())).optional(),
  external: z.boolean().default(false),
});

export type ScriptSpec = z.output<typeof specSchema>;

export interface ScriptTool {
  tool: AnyTool;
  /** The script file (absolute) and its sha256, for the listing at start. */
  script: string;
  scriptSha256: string;
  where: 'sandbox' | 'host';
}

export interface ScriptToolDeps {
  config: Config;
  /** The tools folder: the script must be inside it. */
  dir: string;
  /** Whether the sandbox can run commands here (configured, and in the daemon: its engine answered). */
  sandboxReady: boolean;
  /** Every file name in the folder, to find the script beside the YAML. */
  siblings: readonly string[];
  /** True when `file` is inside the folder and safe to run (no link out, not writable by others); else why not. */
  confined: (file: string) => Result<string>;
}

/** Reads and checks `NAME.yaml`; the tool it defines, or what is wrong, in terms of the file. */
export async function readScriptTool(yamlFile: string, deps: ScriptToolDeps): Promise<Result<ScriptTool>> {
  const document = parseDocument(readFileSync(yamlFile, 'utf8'), { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    const error = document.errors[0];
    const line = error?.linePos?.[0] ? ` (line ${error.linePos[0].line})` : '';
    return failure(`not valid YAML${line}: ${(error?.message ?? '').split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const parsed = specSchema.safeParse(document.toJS() ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') ?? '';
    const reason = issue?.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')} (known: ${Object.keys(specSchema.shape).join(', ')})` : issue?.message ?? 'invalid';
    return failure(key ? `${key}: ${reason}` : reason);
  }
  const spec = parsed.data;
  const name = spec.name ?? path.basename(yamlFile).replace(/\.ya?ml$/, '');
  const problem = checkName(name) ?? (spec.description.trim() === '' ? 'description must not be empty: the model reads it' : undefined) ?? checkEffects(spec.effects);
  if (problem) return failure(problem);
  const parameters = await checkParameters(spec.parameters);
  if (!parameters.success) return parameters;

  const scriptName = spec.script !== undefined ? succeed(spec.script) : defaultScript(name, deps.siblings);
  if (!scriptName.success) return scriptName;
  const scriptFile = path.resolve(deps.dir, scriptName.value);
  const confined = deps.confined(scriptFile);
  if (!confined.success) return failure(`script: ${confined.error}`);

  const allowed = Object.hasOwn(deps.config.tools.scripts, name) ? deps.config.tools.scripts[name] : undefined;
  const where = allowed?.host ? 'host' : 'sandbox';
  if (spec.runs_on === 'host' && where !== 'host') {
    return failure(`it asks to run on the host; allow that in config.yaml with tools.scripts.${name}.host: true (it then runs with the daemon's rights), or set runs_on: sandbox`);
  }
  if (where === 'sandbox') {
    if (!deps.config.tools.sandbox) return failure(`script tools run in the sandbox, and tools.sandbox is not configured; configure it, or let this one run on the host with tools.scripts.${name}.host: true`);
    if (!deps.sandboxReady) return failure('script tools run in the sandbox, which is not available (see familiar doctor)');
    if (spec.network && !deps.config.tools.sandbox.allow_network) return failure('network: true needs tools.sandbox.allow_network: true');
  }
  const content = readFileSync(confined.value);
  if (where === 'sandbox' && content.length > SANDBOX_SCRIPT_MAX_BYTES) {
    return failure(`the script is ${content.length} bytes; a sandbox script may have at most ${SANDBOX_SCRIPT_MAX_BYTES} (put the rest in files it reads from /workspace)`);
  }
  if (where === 'host') {
    try {
      accessSync(confined.value, constants.X_OK);
    } catch {
      return failure(`the script ${path.basename(confined.value)} is not executable; chmod +x it (and start it with a #! line)`);
    }
  }
  const sha256 = createHash('sha256').update(content).digest('hex');
  const timeoutMs = spec.timeout_s * 1000;
  const effects = spec.effects as Effect[] | undefined;
  const tool: AnyTool = {
    name,
    description: spec.description,
    parameters: parameters.value,
    // A host script runs with the daemon's rights: asked before each call unless its YAML says low.
    risk: spec.risk ?? (where === 'host' ? 'high' : 'low'),
    ...(effects ? { effects } : {}),
    ...(spec.external ? { external: true } : {}),
    // The script's own deadline, plus a moment for the sandbox or the process to be stopped and said so.
    timeoutMs: timeoutMs + 5000,
    async execute(params, ctx) {
      const request = { name, params, timeoutMs, conversationId: ctx.conversationId, signal: ctx.signal };
      if (where === 'host') {
        return runOnHost({ ...request, file: confined.value, sha256, env: allowed?.env ?? {}, timeZone: ctx.config.timezone });
      }
      if (!ctx.pool) return { success: false, output: `${name} runs in the sandbox, which is not running (no Docker engine); tell the person to run familiar doctor.` };
      return runInSandbox({ ...request, workspaceId: workspaceIdOf(ctx), pool: ctx.pool, script: content, network: spec.network });
    },
  };
  return succeed({ tool, script: confined.value, scriptSha256: sha256, where });
}

/** The one file beside the YAML named `NAME.<ext>` (not another YAML, not a test). */
function defaultScript(name: string, siblings: readonly string[]): Result<string> {
  const candidates = siblings.filter((file) => file.startsWith(`${name}.`) && !/\.ya?ml$/.test(file) && !/\.(test|spec)\./.test(file));
  if (candidates.length === 1 && candidates[0] !== undefined) return succeed(candidates[0]);
  if (candidates.length === 0) return failure(`no script beside it: add ${name}.sh (or .py, …), or name it with script:`);
  return failure(`more than one script could be it (${candidates.join(', ')}); name the one with script:`);
}

/** Files a YAML claims as its script, so they are not also read as modules. */
export function claimedScript(yamlFile: string, siblings: readonly string[]): string | undefined {
  try {
    const value = parseDocument(readFileSync(yamlFile, 'utf8')).toJS() as { script?: unknown; name?: unknown } | null;
    if (typeof value?.script === 'string') return path.normalize(value.script);
    const name = typeof value?.name === 'string' ? value.name : path.basename(yamlFile).replace(/\.ya?ml$/, '');
    const found = defaultScript(name, siblings);
    return found.success ? found.value : undefined;
  } catch {
    return undefined;
  }
}
