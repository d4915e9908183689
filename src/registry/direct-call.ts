import { randomUUID } from 'node:crypto';
import type { CallRequest } from '../tools/call.js';

/** What the seed's `execute(name, params, options)` may add to a call; the rest has defaults for a call made in code. */
export type DirectCallOptions = Partial<Omit<CallRequest, 'name' | 'arguments'>>;

/** The origin of a call made in code (a script, a test, a ported seed module) rather than in a chat. */
export const DIRECT_ORIGIN = { channel: 'direct', chatId: 'direct' } as const;

/**
 * The `CallRequest` that seed 000's `execute(name, params)` means. Contract: throws a TypeError for a call shape that
 * is a programming mistake (no name, arguments that are not an object), which no model could fix: a loud error in
 * the caller's code, never a tool result saying `Unknown tool "undefined"`.
 */
export function directRequest(name: unknown, params: unknown, options: unknown): CallRequest {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`registry.execute takes a call ({ name, arguments, … }) or a tool's name and its arguments, not ${describe(name)}`);
  }
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new TypeError(`registry.execute("${name}", params): params must be an object of arguments, not ${describe(params)}`);
  }
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw new TypeError(`registry.execute("${name}", params, options): options must be an object, not ${describe(options)}`);
  }
  const extra = (options ?? {}) as DirectCallOptions;
  return {
    conversationId: 'direct',
    turnId: `direct-${randomUUID()}`,
    origin: DIRECT_ORIGIN,
    ...extra,
    name,
    arguments: (params ?? {}) as Record<string, unknown>,
  };
}

/** A whole call as the registry takes it: a name, and arguments as JSON text or an object. */
export function checkCallRequest(request: CallRequest): void {
  if (typeof request.name !== 'string' || request.name === '') {
    throw new TypeError(`registry.execute: the call has no tool name (got ${describe(request.name)}); pass { name, arguments, … } or (name, params)`);
  }
  const args: unknown = request.arguments;
  if (typeof args !== 'string' && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    throw new TypeError(`registry.execute: the arguments of ${request.name} must be JSON text or an object, not ${describe(args)}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty text' : 'a text';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}
