import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { DoctorLine, Part } from '../../part.js';
import type { AnyTool } from '../types.js';
import type { Resolver } from '../../net/fetch-guarded.js';
import { createHttpTool } from '../http/tool.js';
import { createSearchProvider, providerProblem, type WebSearchConfig } from './providers.js';
import { createWebSearchTool } from './web-search.js';

/**
 * Reaching the web: `web_search` (only when its provider can run) and `http` (always: its section has safe
 * defaults). Logs one line when web search is off. `resolve` lets tests steer the SSRF guard's name resolution.
 */
export function createWebPart(deps: { config: Config; log: Logger; resolve?: Resolver }): { part: Part } {
  const { config } = deps;
  const log = deps.log.child({ component: 'reach' });
  const search = config.tools.web_search;
  const problem = search ? providerProblem(search) : 'no tools.web_search section';
  const tools: AnyTool[] = [];
  if (search && !problem) tools.push(createWebSearchTool(search, createSearchProvider(search)));
  else log.info(`web_search: disabled (${problem})`);
  tools.push(createHttpTool({ config: config.tools.http, ...(deps.resolve ? { resolve: deps.resolve } : {}) }));
  const part: Part = {
    name: 'web_search',
    tools,
    async doctor(): Promise<DoctorLine[]> {
      return [await doctorWebSearch(search, problem), doctorHttp(config)];
    },
  };
  return { part };
}

async function doctorWebSearch(config: WebSearchConfig | undefined, problem: string | undefined): Promise<DoctorLine> {
  if (!config || problem) {
    return { status: 'skip', label: 'web_search: disabled', ...(problem ? { detail: problem } : {}), fix: 'set tools.web_search: provider tavily or exa with api_key, or searxng with base_url' };
  }
  if (config.provider !== 'searxng') {
    return { status: 'ok', label: `web_search: ${config.provider}`, detail: 'api_key set (not probed: every search costs a credit)' };
  }
  const url = new URL(`${(config.base_url ?? '').replace(/\/+$/, '')}/search`);
  url.searchParams.set('q', 'familiar doctor');
  url.searchParams.set('format', 'json');
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(Math.min(config.timeout_s, 10) * 1000) });
    await response.body?.cancel();
    if (response.ok) return { status: 'ok', label: `web_search: searxng at ${url.origin} answers` };
    if (response.status === 403) return { status: 'fail', label: 'web_search: searxng', detail: 'JSON output is disabled (403)', fix: 'add json to search.formats in the instance\'s settings.yml' };
    return { status: 'fail', label: 'web_search: searxng', detail: `HTTP ${response.status}`, fix: 'check tools.web_search.base_url' };
  } catch (error) {
    return { status: 'fail', label: 'web_search: searxng', detail: `cannot reach ${url.origin} (${(error as Error).message})`, fix: 'check tools.web_search.base_url and that the instance runs' };
  }
}

function doctorHttp(config: Config): DoctorLine {
  const http = config.tools.http;
  const presets = Object.keys(http.presets);
  const guard = http.allow_private ? 'private addresses allowed' : `private addresses blocked${http.allow_hosts.length > 0 ? ` except ${http.allow_hosts.join(', ')}` : ''}`;
  return { status: 'ok', label: 'http', detail: `${presets.length > 0 ? `presets ${presets.join(', ')}` : 'no presets'}; ${guard}` };
}
