import type OpenAI from 'openai';
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { Resolver } from '../../net/fetch-guarded.js';
import { failure, succeed, type Result } from '../../lib/result.js';
import type { DoctorLine, Part } from '../../part.js';
import { createImageGenerateTool, type ImageBudget, type ImageEndpoint } from './tool.js';

/**
 * Images: `image_generate` when `tools.images` is set. Without `base_url` the endpoint is the LLM's server, with the
 * LLM's key (which never goes to another host). The `openai` client is made on the first image. No section, or a
 * hosted endpoint without a key: one log line, and no part.
 */
export function createImagesPart(deps: { config: Config; log: Logger; budget: ImageBudget; resolve?: Resolver }): { part: Part | undefined } {
  const { config } = deps;
  const settings = config.tools.images;
  const log = deps.log.child({ component: 'images' });
  if (!settings) {
    log.info('image_generate: no tools.images section; the tool is off');
    return { part: undefined };
  }
  const endpoint = endpointOf(config);
  if (!endpoint.success) {
    log.warn(`image_generate: off (${endpoint.error})`);
    return { part: undefined };
  }
  let client: Promise<OpenAI> | undefined;
  const tool = createImageGenerateTool({
    settings, endpoint: endpoint.value, http: config.tools.http, budget: deps.budget, ...(deps.resolve ? { resolve: deps.resolve } : {}),
    client: () => (client ??= import('openai').then(({ default: OpenAIClient }) => new OpenAIClient({ baseURL: endpoint.value.baseUrl, apiKey: endpoint.value.apiKey || 'none', maxRetries: 2, timeout: settings.timeout_s * 1000 }))),
  });
  const part: Part = {
    name: 'images',
    tools: [tool],
    async doctor(): Promise<DoctorLine[]> {
      // Not probed: every image costs money.
      return [{ status: 'ok', label: `image_generate: ${settings.model}`, detail: `${endpoint.value.baseUrl}/images/generations (not probed: every image is paid for)` }];
    },
  };
  return { part };
}

function endpointOf(config: Config): Result<ImageEndpoint> {
  const images = config.tools.images;
  const baseUrl = (images?.base_url ?? config.llm.base_url).replace(/\/+$/, '');
  const apiKey = images?.api_key !== undefined && images.api_key !== '' ? images.api_key : images?.base_url === undefined ? config.llm.api_key : '';
  if (apiKey === '' && /(^|\.)openai\.com$/i.test(new URL(baseUrl).hostname)) {
    return failure(`${baseUrl} needs an API key: set tools.images.api_key (or llm.api_key when tools.images.base_url is not set)`);
  }
  return succeed({ baseUrl, apiKey });
}
