import { wrapOutside } from '../external.js';
import { retryAfterSeconds } from '../../lib/retry-after.js';
import type { Result } from '../../lib/result.js';
import { fail, type NativeTool, type Risk, type ToolCallContext, type ToolResult } from '../types.js';
import { fetchGuarded, HttpFetchError, type GuardedRequest, type GuardedResponse, type Resolver } from '../../net/fetch-guarded.js';
import { presetOriginsOf } from '../../net/ssrf.js';
import { headerText } from '../../net/body-text.js';
import { formatBody } from './format.js';
import { describePreset, resolveTarget, type HttpConfig } from './target.js';

export interface HttpParams {
  method?: string;
  url: string;
  preset?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: string | Record<string, unknown> | unknown[];
  as_file?: boolean;
}

export interface HttpToolOptions {
  config: HttpConfig;
  /** Name resolution for the SSRF guard (tests inject one). */
  resolve?: Resolver;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
// Shown for HEAD requests; cookies are left out on purpose.
const HEAD_HEADERS = ['content-type', 'content-length', 'last-modified', 'etag', 'cache-control', 'location', 'content-disposition'];

/** Only a plain GET is low-risk; anything that can change state on the other side asks first. */
export function httpRisk(params: { method?: unknown }): Risk {
  return String(params.method ?? 'GET').toUpperCase() === 'GET' ? 'low' : 'high';
}

export function createHttpTool(options: HttpToolOptions): NativeTool<HttpParams> {
  const { config } = options;
  const presetNames = Object.keys(config.presets);
  const presetOrigins = presetOriginsOf(config.presets);
  return {
    name: 'http',
    description: describeHttp(config),
    parameters: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: [...METHODS], default: 'GET', description: 'HTTP method; default GET.' },
        url: { type: 'string', minLength: 1, description: 'Absolute http(s) URL, or with a preset a path relative to its base URL.' },
        ...(presetNames.length > 0 ? { preset: { type: 'string', enum: presetNames, description: 'Stored credentials for one site.' } } : { preset: { type: 'string', description: 'No presets are configured.' } }),
        headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Extra request headers.' },
        query: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, description: 'Query parameters added to the URL.' },
        body: { type: ['string', 'object', 'array'], description: 'Request body: a string is sent as is, an object or array as JSON.' },
        as_file: { type: 'boolean', description: 'Return the response body as a file attachment (for images, PDFs, archives).' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    risk: httpRisk,
    external: true,
    vouches: true,
    // The address as it will be requested (query included): in a tainted turn it must have been written by the person
    // or appear in the outside content already read; a body or headers always need the person.
    effects: (params: HttpParams) => [{
      kind: 'egress', url: requestedAddress(params), method: (params.method ?? 'GET').toUpperCase(),
      carriesData: params.body !== undefined || (params.headers !== undefined && Object.keys(params.headers).length > 0),
    }],
    // Our own timeout answers first, with a clearer message than the registry's deadline.
    timeoutMs: (config.timeout_s + 5) * 1000,
    async execute(params, ctx): Promise<ToolResult> {
      const method = (params.method ?? 'GET').toUpperCase();
      const request = requestOf(method, params, config);
      if (!request.success) return fail(request.error);
      const response = await send(request.value, options, presetOrigins, ctx);
      if (!response.success) return fail(response.error);
      return answerOf(method, params, response.value, config);
    },
  };
}

/** What the model reads about the tool: what it does, how the address guard is set, and the presets. */
function describeHttp(config: HttpConfig): string {
  const presetNames = Object.keys(config.presets);
  const presetLines = presetNames.map((name) => `- ${describePreset(name, config.presets[name] as HttpConfig['presets'][string])}`);
  const guardNote = config.allow_private
    ? 'Private and loopback addresses are allowed (tools.http.allow_private).'
    : 'Private, loopback, link-local and cloud metadata addresses are refused.';
  return [
    'Make an HTTP request and read the answer. JSON comes back pretty-printed, HTML as readable text, binary content as a summary (or a file with as_file: true).',
    `GET is read-only; other methods change things on the other side and may need the person's approval. ${guardNote}`,
    presetNames.length > 0
      ? `Presets add stored credentials for one site; give the preset name and a path as url (e.g. "/items"):\n${presetLines.join('\n')}`
      : 'No presets are configured.',
  ].join('\n');
}

/** The request the call asks for: the address (a preset's joined and scoped), its headers and its body. */
function requestOf(method: string, params: HttpParams, config: HttpConfig): Result<GuardedRequest> {
  const resolved = resolveTarget({ url: params.url, preset: params.preset, query: params.query }, config.presets);
  if (!resolved.success) return resolved;
  const { url, scoped } = resolved.value;
  if ((method === 'GET' || method === 'HEAD') && params.body !== undefined) {
    return { success: false, error: `${method} requests cannot carry a body; use POST, PUT or PATCH, or put the data in query.` };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(params.headers ?? {})) headers[name.toLowerCase()] = value;
  let body: Buffer | undefined;
  if (typeof params.body === 'string') {
    body = Buffer.from(params.body, 'utf8');
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (params.body !== undefined) {
    body = Buffer.from(JSON.stringify(params.body), 'utf8');
    headers['content-type'] ??= 'application/json';
  }
  headers.accept ??= 'application/json, text/html;q=0.9, text/*;q=0.8, */*;q=0.5';
  return { success: true, value: { method, url, headers, ...(body ? { body } : {}), ...(scoped ? { scoped } : {}) } };
}

/** The request through the guarded fetch; a refusal or a network failure as the message the model can act on. */
async function send(request: GuardedRequest, options: HttpToolOptions, presetOrigins: readonly string[], ctx: ToolCallContext): Promise<Result<GuardedResponse>> {
  const { config } = options;
  const { method, url } = request;
  let response: GuardedResponse;
  try {
    response = await fetchGuarded(request, {
      rules: { allowPrivate: config.allow_private, allowHosts: config.allow_hosts, allowOrigins: presetOrigins },
      timeoutMs: config.timeout_s * 1000,
      maxBytes: config.max_bytes,
      maxRedirects: config.max_redirects,
      signal: ctx.signal,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
  } catch (error) {
    if (!(error instanceof HttpFetchError)) throw error;
    ctx.log.info({ method, url: url.origin + url.pathname, kind: error.kind }, 'http request failed');
    return { success: false, error: `${method} ${url.href} failed: ${error.message}.${fetchHint(error, config.allow_private)}` };
  }
  ctx.log.debug({ method, url: response.url.origin + response.url.pathname, status: response.status, bytes: response.body.length, redirects: response.redirects.length }, 'http request');
  return { success: true, value: response };
}

/** The answer as the model reads it: our status line and redirects, then the server's words as outside content. */
async function answerOf(method: string, params: HttpParams, response: GuardedResponse, config: HttpConfig): Promise<ToolResult> {
  const formatted = await formatBody(response, { asFile: params.as_file === true, maxBytes: config.max_bytes });
  const lines = [`${method} ${response.url.href} → ${response.status} ${response.statusText}`.trim()];
  if (response.redirects.length > 0) lines.push(`(redirected from ${response.redirects.map((hop) => hop.href).join(' → ')})`);
  lines.push(formatted.summary);
  let external = formatted.text;
  if (method === 'HEAD') {
    external = HEAD_HEADERS.filter((name) => response.headers[name] !== undefined).map((name) => `${name}: ${headerText(response.headers[name])}`).join('\n');
  }
  if (response.truncated && formatted.kind !== 'binary') external += `\n…[cut at ${config.max_bytes} bytes]`;
  const failed = response.status >= 400;
  if (failed) lines[0] = `${lines[0]}; ${statusHint(response.status, response.headers['retry-after'], params.preset)}`;
  // The body (or a HEAD's headers) is the server's words; the status line and the redirects are ours.
  const outside = external.trim() ? wrapOutside(response.url.href, external) : undefined;
  const output = outside ? `${lines.join('\n')}\n${outside.wrapped}` : lines.join('\n');
  return {
    success: !failed,
    output,
    ...(outside ? { thirdParty: [outside.shown] } : {}),
    // A failed call still carries outside text, so it taints the turn too.
    externalSource: `http:${response.url.origin}`,
    ...(formatted.artifact ? { artifacts: [formatted.artifact] } : {}),
  };
}

function fetchHint(error: HttpFetchError, allowPrivate: boolean): string {
  switch (error.kind) {
    case 'blocked':
      return allowPrivate
        ? ' Cloud metadata addresses stay blocked; do not retry.'
        : ' Do not retry this address; if the person wants it reachable, they can add the host to tools.http.allow_hosts.';
    case 'timeout':
      return ' The server may be slow or down; try again later or ask for less.';
    case 'redirect':
      return ' Call the final URL directly if you know it.';
    case 'network':
      return ' Check the URL.';
    default:
      return '';
  }
}

function statusHint(status: number, retryAfter: string | string[] | undefined, preset: string | undefined): string {
  if (status === 401 || status === 403) return preset ? `the server refused preset "${preset}"'s credentials or this action` : 'the server wants credentials or refused the action (is there a preset for this site?)';
  if (status === 404) return 'check the URL';
  if (status === 429) {
    const seconds = retryAfterSeconds(retryAfter);
    return `rate limited${seconds !== undefined ? `; retry after ${seconds} s` : '; wait before retrying'}`;
  }
  if (status >= 500) return 'the server failed; try again later';
  return 'the server refused the request; check the method, headers and body';
}

/** The URL as given with its `query` parameters added, as a person would read it (a preset keeps its relative path). */
function requestedAddress(params: HttpParams): string {
  const query = Object.entries(params.query ?? {});
  if (query.length === 0) return params.url;
  const encoded = query.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`).join('&');
  return `${params.url}${params.url.includes('?') ? '&' : '?'}${encoded}`;
}
