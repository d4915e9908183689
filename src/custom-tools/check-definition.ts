/**
 * What a tool definition must be before it is registered — from a module (`defineTool`) or a script tool's YAML —
 * each problem said so the person can fix their file: the name, the description, a JSON Schema of an object that
 * ajv compiles, a risk, effects and a deadline of the right shapes.
 */
import type { Ajv, ErrorObject } from 'ajv';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { Effect } from '../tools/effects.js';

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

let ajv: Promise<Ajv> | undefined;

function loadAjv(): Promise<Ajv> {
  // The registry's settings (strict off), so what loads here is what the registry accepts on a call.
  ajv ??= import('ajv').then(({ Ajv: AjvClass }) => new AjvClass({ allErrors: true, strict: false }));
  return ajv;
}

/** A tool's `parameters`: a JSON Schema (draft-07, as the registry validates) of an object. */
export async function checkParameters(schema: unknown): Promise<Result<Record<string, unknown>>> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return failure('parameters must be a JSON Schema object, e.g. { type: "object", properties: {…} }');
  const object = schema as Record<string, unknown>;
  if (object.type !== 'object') return failure(`parameters must describe an object (type: "object"), not ${object.type === undefined ? 'a schema without a type' : JSON.stringify(object.type)}`);
  const validator = await loadAjv();
  if (!validator.validateSchema(object)) return failure(`parameters is not a valid JSON Schema: ${schemaErrors(validator.errors, object)}`);
  try {
    validator.compile(object);
  } catch (error) {
    return failure(`parameters is not a valid JSON Schema: ${errorMessage(error)}`);
  }
  return succeed(object);
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** The meta-schema's complaints, one per place (its anyOf alternatives say the same thing three ways). */
function schemaErrors(errors: ErrorObject[] | null | undefined, schema: Record<string, unknown>): string {
  const seen = new Set<string>();
  const messages: string[] = [];
  for (const error of errors ?? []) {
    if (seen.has(error.instancePath)) continue;
    seen.add(error.instancePath);
    const at = `parameters${error.instancePath.replace(/\//g, '.')}`;
    if (error.instancePath.endsWith('/type')) {
      messages.push(`${at} is ${JSON.stringify(valueAt(schema, error.instancePath))}, not a JSON Schema type (${TYPES.join(', ')})`);
    } else messages.push(`${at} ${error.message ?? 'is invalid'}`);
  }
  return messages.join('; ') || 'rejected by the JSON Schema meta-schema';
}

function valueAt(root: unknown, pointer: string): unknown {
  let current = root;
  for (const key of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function checkName(name: unknown): string | undefined {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) return `name must be 1-64 letters, digits, _ or - (got ${JSON.stringify(name) ?? 'nothing'})`;
  return undefined;
}

export function checkDescription(description: unknown): string | undefined {
  if (typeof description !== 'string' || description.trim() === '') return 'description must be a non-empty text: the model reads it to decide when to call the tool';
  return undefined;
}

export function checkRisk(risk: unknown): string | undefined {
  if (risk === undefined || risk === 'low' || risk === 'high' || typeof risk === 'function') return undefined;
  return `risk must be "low" or "high" (or a function of the arguments), not ${JSON.stringify(risk)}`;
}

const EFFECT_KINDS = new Set(['egress', 'persist', 'install']);
const PERSIST_TARGETS = new Set(['memory', 'job', 'skill']);

/** A declared list of effects (src/tools/effects.ts); a function is checked on each call by the trust policy. */
export function checkEffects(effects: unknown): string | undefined {
  if (effects === undefined || typeof effects === 'function') return undefined;
  if (!Array.isArray(effects)) return 'effects must be a list, e.g. [] or [{ kind: "egress", url: "…" }]';
  for (const [index, effect] of (effects as unknown[]).entries()) {
    const kind = (effect as Partial<Effect> | null)?.kind;
    if (effect === null || typeof effect !== 'object' || typeof kind !== 'string' || !EFFECT_KINDS.has(kind)) {
      return `effects[${index}] must have kind "egress", "persist" or "install"`;
    }
    if (kind === 'persist' && !PERSIST_TARGETS.has(String((effect as { target?: unknown }).target))) {
      return `effects[${index}]: a persist effect needs target "memory", "job" or "skill"`;
    }
  }
  return undefined;
}

export function checkTimeout(timeoutMs: unknown, key = 'timeoutMs'): string | undefined {
  if (timeoutMs === undefined) return undefined;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) return `${key} must be a positive number`;
  return undefined;
}

const SCHEMA_KEYS = ['name', 'description', 'parameters'] as const;

/**
 * Seed 001's `{ schema: { name, description, parameters }, execute }` as the flat definition it means (a module that
 * exports it without `defineTool`, or one `defineTool` could not flatten). Refused when the two shapes are mixed, so
 * it is never a guess which name or schema counts.
 */
export function flattenSeedShape(record: Record<PropertyKey, unknown>): Result<Record<PropertyKey, unknown>> {
  if (!Object.hasOwn(record, 'schema')) return succeed(record);
  const schema = record.schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return failure('schema must be an object { name, description, parameters } (or give those three beside execute, without schema)');
  const beside = SCHEMA_KEYS.filter((key) => record[key] !== undefined);
  if (beside.length > 0) return failure(`give name, description and parameters either inside schema (as seed 001 does) or beside execute, not both (${beside.join(', ')} found beside schema)`);
  const inner = schema as Record<string, unknown>;
  const { schema: _schema, ...rest } = record;
  return succeed({ ...rest, name: inner.name, description: inner.description, parameters: inner.parameters });
}
