import type OpenAI from 'openai';
import type { ToolsConfig } from '../../config/schema.js';
import { fetchGuarded, HttpFetchError, type Resolver } from '../../net/fetch-guarded.js';
import { presetOriginsOf } from '../../net/ssrf.js';
import type { AnyTool, Artifact } from '../types.js';

export type ImagesConfig = NonNullable<ToolsConfig['images']>;

/** Where the endpoint is and how to reach it (resolved by the part: the LLM's server and key when no base_url). */
export interface ImageEndpoint {
  baseUrl: string;
  apiKey: string;
}

/** The daily budget and the usage ledger for images (the root's usage part): one ledger row per image. */
export interface ImageBudget {
  check(conversationId: string): string | undefined;
  record(call: { conversationId: string; model: string | undefined; promptTokens: number; completionTokens: number; startedAt: number; endedAt: number; error?: string }): void;
}

export interface ImageToolDeps {
  settings: ImagesConfig;
  endpoint: ImageEndpoint;
  /** `tools.http`: an image given by URL is fetched with the http tool's address rules (the endpoint's origin allowed). */
  http: ToolsConfig['http'];
  budget: ImageBudget;
  resolve?: Resolver;
  /** The client, made on first use (the `openai` package). */
  client: () => Promise<OpenAI>;
}

interface ImageParams {
  prompt: string;
  size?: string;
  n?: number;
}

const MIME: ReadonlyArray<{ type: string; extension: string; test: (data: Buffer) => boolean }> = [
  { type: 'image/png', extension: 'png', test: (data) => data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', extension: 'jpg', test: (data) => data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff },
  { type: 'image/webp', extension: 'webp', test: (data) => data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP' },
  { type: 'image/gif', extension: 'gif', test: (data) => data.subarray(0, 4).toString('latin1') === 'GIF8' },
];

/**
 * `image_generate`: an image from a prompt through an OpenAI-compatible `/images/generations` endpoint, with the
 * `openai` client's `images.generate`. The image (b64_json, or fetched from its url through the guard) comes back as
 * an image artifact, which the channels send inline. The prompt is sent to a third party: an egress with a body, so a
 * turn holding outside content asks first. Counted in the usage ledger and the daily budget.
 */
export function createImageGenerateTool(deps: ImageToolDeps): AnyTool {
  const { settings, endpoint } = deps;
  const address = `${endpoint.baseUrl}/images/generations`;
  return {
    name: 'image_generate',
    aliases: ['imageGeneration'],
    description: `Make an image from a text description (model ${settings.model}); the image is sent to the person with your answer. Describe the picture fully in prompt.`,
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 4000, description: 'what the image shows, in words' },
        size: { type: 'string', pattern: '^(auto|\\d{2,5}x\\d{2,5})$', description: `WIDTHxHEIGHT such as 1024x1024 (default ${settings.size ?? 'the endpoint\'s'})` },
        n: { type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'how many images' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    // The prompt (possibly made from outside content) goes to the image service.
    effects: [{ kind: 'egress', url: address, method: 'POST', carriesData: true, what: 'an image prompt' }],
    explain: (params: ImageParams) => [`It sends this prompt to ${new URL(address).host}: "${String(params.prompt ?? '').slice(0, 300)}"`],
    timeoutMs: settings.timeout_s * 1000 + 5000,
    async execute(params: ImageParams, ctx) {
      const refused = deps.budget.check(ctx.conversationId);
      if (refused) return { success: false, output: refused };
      const n = params.n ?? 1;
      const size = params.size ?? settings.size;
      const startedAt = Date.now();
      let response: OpenAI.Images.ImagesResponse;
      try {
        const client = await deps.client();
        response = await client.images.generate(
          { model: settings.model, prompt: params.prompt, n, ...(size ? { size } : {}) },
          { signal: ctx.signal, timeout: settings.timeout_s * 1000 },
        );
      } catch (error) {
        deps.budget.record({ conversationId: ctx.conversationId, model: settings.model, promptTokens: 0, completionTokens: 0, startedAt, endedAt: Date.now(), error: (error as Error).message });
        return { success: false, output: failureText(error, address) };
      }
      const artifacts: Artifact[] = [];
      const problems: string[] = [];
      for (const [index, image] of (response.data ?? []).entries()) {
        const data = await imageBytes(image, deps, ctx.signal);
        if (typeof data === 'string') {
          problems.push(`image ${index + 1}: ${data}`);
          continue;
        }
        const kind = MIME.find((candidate) => candidate.test(data));
        if (!kind) {
          problems.push(`image ${index + 1}: the endpoint sent something that is not a PNG, JPEG, WebP or GIF image`);
          continue;
        }
        artifacts.push({ type: 'image', name: `image-${startedAt.toString(36)}-${index + 1}.${kind.extension}`, content: data, mimeType: kind.type });
      }
      countImages(deps, ctx.conversationId, response, Math.max(artifacts.length, 1), startedAt);
      if (artifacts.length === 0) return { success: false, output: `No image came back${problems.length > 0 ? `: ${problems.join('; ')}` : ''}. Try again, or change the prompt.` };
      const made = `Made ${artifacts.length} image${artifacts.length === 1 ? '' : 's'} (${settings.model}${size ? `, ${size}` : ''}); ${artifacts.length === 1 ? 'it is' : 'they are'} sent to the person with your answer.`;
      return { success: true, output: problems.length > 0 ? `${made} Not made: ${problems.join('; ')}.` : made, artifacts };
    },
  };
}

/** The image's bytes: its b64_json, or its url fetched through the guard; a string says why not. */
async function imageBytes(image: OpenAI.Images.Image, deps: ImageToolDeps, signal: AbortSignal): Promise<Buffer | string> {
  if (typeof image.b64_json === 'string' && image.b64_json !== '') return Buffer.from(image.b64_json, 'base64');
  if (typeof image.url !== 'string' || image.url === '') return 'the endpoint sent neither b64_json nor url';
  let url: URL;
  try {
    url = new URL(image.url);
  } catch {
    return 'the endpoint sent an image url that is not a URL';
  }
  if (url.protocol === 'data:') return 'the endpoint sent a data: url, which is not read';
  const { http } = deps;
  try {
    const response = await fetchGuarded(
      { method: 'GET', url, headers: { accept: 'image/*' } },
      {
        // The endpoint's own origin is allowed like a preset's (a local server may be on a private address).
        rules: { allowPrivate: http.allow_private, allowHosts: http.allow_hosts, allowOrigins: [...presetOriginsOf(http.presets), new URL(deps.endpoint.baseUrl).origin] },
        timeoutMs: deps.settings.timeout_s * 1000, maxBytes: deps.settings.max_bytes, maxRedirects: http.max_redirects, signal,
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
      },
    );
    if (response.status >= 400) return `its url answered ${response.status}`;
    if (response.truncated) return `it is larger than tools.images.max_bytes (${deps.settings.max_bytes} bytes)`;
    return response.body;
  } catch (error) {
    return error instanceof HttpFetchError ? `its url could not be read (${error.message})` : `its url could not be read (${(error as Error).message})`;
  }
}

/** One ledger row per image: the endpoint's token use shared among them, else tools.images.tokens_per_image each. */
function countImages(deps: ImageToolDeps, conversationId: string, response: OpenAI.Images.ImagesResponse, images: number, startedAt: number): void {
  const endedAt = Date.now();
  const input = response.usage?.input_tokens;
  const output = response.usage?.output_tokens ?? (response.usage ? 0 : deps.settings.tokens_per_image * images);
  for (let index = 0; index < images; index += 1) {
    const share = (total: number) => Math.floor(total / images) + (index === 0 ? total % images : 0);
    deps.budget.record({ conversationId, model: deps.settings.model, promptTokens: share(input ?? 0), completionTokens: share(output), startedAt, endedAt });
  }
}

function failureText(error: unknown, address: string): string {
  const status = (error as { status?: unknown }).status;
  const message = String((error as Error).message ?? error).slice(0, 300);
  if (status === 401 || status === 403) return `The image endpoint ${address} refused the API key (${status}): the person should check tools.images.api_key.`;
  if (status === 404) return `${address} answered 404: the person should check tools.images.base_url and model.`;
  if (status === 400) return `The image endpoint refused the request: ${message}. Change the prompt or the size and try again.`;
  if (status === 429) return `The image endpoint is rate-limited or out of credit (429): ${message}. Try again later.`;
  if ((error as Error).name === 'AbortError') return 'The image was not made: the call was cancelled.';
  return `The image endpoint ${address} failed: ${message}.`;
}
