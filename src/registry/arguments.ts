import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { errorMessage } from '../errors.js';
import { failure, succeed, type Result } from '../lib/result.js';
import type { RegisteredTool } from '../tools/call.js';
import type { AnyTool } from '../tools/types.js';
import { checkArgumentKeys } from './argument-keys.js';

/**
 * A call's arguments, from the model's JSON text (or a caller's object) to one checked object: parsed, free of keys
 * that change how JavaScript reads an object (`argument-keys.ts`), and valid against the tool's JSON Schema (ajv,
 * loaded on the first call, each schema compiled on its tool's first call). Every failure is a message the model
 * can act on.
 */
export class ArgumentChecker {
  private ajv: Promise<Ajv> | undefined;
  private readonly compiled = new WeakMap<AnyTool, ValidateFunction>();

  /**
   * The model's JSON text as one object (a copy, when the caller passed an object). Keys such as `__proto__` are
   * refused: dropped by a copy, they would be sent without being shown.
   */
  parse(entry: RegisteredTool, raw: string | Record<string, unknown>): Result<Record<string, unknown>> {
    let params: Record<string, unknown>;
    if (typeof raw !== 'string') {
      params = structuredClone(raw);
    } else {
      const parsed = parseJsonObject(raw);
      if (!parsed.success) return failure(`Arguments for ${entry.functionName} are not valid JSON (${parsed.error}). Send one JSON object that matches the tool's schema.`);
      params = parsed.value;
    }
    const keys = checkArgumentKeys(params);
    if (!keys.success) return failure(`Arguments for ${entry.functionName} refused: ${keys.error}.`);
    return succeed(params);
  }

  /** Undefined when `params` match the tool's schema; else what to fix. Defaults from the schema are filled in. */
  async validate(entry: RegisteredTool, params: Record<string, unknown>): Promise<string | undefined> {
    const validate = await this.validator(entry.tool);
    if (validate(params)) return undefined;
    return formatAjvErrors(validate.errors);
  }

  /** A `tool:before` hook's new arguments pass the same checks as the model's: one object, no forbidden keys, the schema. */
  async checkRewrite(entry: RegisteredTool, params: unknown): Promise<Result<Record<string, unknown>>> {
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return failure('not an object');
    let copy: Record<string, unknown>;
    try {
      copy = structuredClone(params as Record<string, unknown>);
    } catch (error) {
      return failure(errorMessage(error));
    }
    const keys = checkArgumentKeys(copy);
    if (!keys.success) return failure(keys.error);
    const invalid = await this.validate(entry, copy);
    return invalid === undefined ? succeed(copy) : failure(invalid);
  }

  private async validator(tool: AnyTool): Promise<ValidateFunction> {
    const cached = this.compiled.get(tool);
    if (cached) return cached;
    this.ajv ??= import('ajv').then(({ Ajv: AjvClass }) => new AjvClass({ allErrors: true, strict: false, useDefaults: true }));
    const validate = (await this.ajv).compile(tool.parameters);
    this.compiled.set(tool, validate);
    return validate;
  }
}

function parseJsonObject(text: string): Result<Record<string, unknown>> {
  const trimmed = text.trim();
  // Models send "" for a tool without parameters.
  if (trimmed === '') return succeed({});
  try {
    const value: unknown = JSON.parse(trimmed);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return failure('expected a JSON object');
    return succeed(value as Record<string, unknown>);
  } catch (error) {
    return failure(errorMessage(error));
  }
}

export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'does not match the schema';
  const messages = errors.map((error) => {
    const at = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : '';
    switch (error.keyword) {
      case 'required':
        return `missing required field "${String(error.params.missingProperty)}"`;
      case 'additionalProperties':
        return `unknown field "${String(error.params.additionalProperty)}"${at ? ` in ${at}` : ''}`;
      case 'enum':
        return `${at || 'value'} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      case 'type':
        return `${at || 'value'} must be ${String(error.params.type)}`;
      default:
        return `${at || 'value'} ${error.message ?? 'is invalid'}`;
    }
  });
  return [...new Set(messages)].join('; ');
}
