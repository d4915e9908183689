import type { App, DoctorLine } from '../app.js';
import { createHttpTool } from './http/tool.js';
import type { Resolver } from './http/fetch-guarded.js';
import { createWebSearchTool } from './web-search.js';
import { createSearchProvider, providerProblem, type WebSearchConfig } from './web-search-providers.js';

/**
 * Installs `web_search` (only when its provider can run) and `http` (always: its section has safe defaults).
 * Logs one line when web search is off. `resolve` lets tests steer the SSRF guard's name resolution.
 */
export function createReachInstaller(options: { resolve?: Resolver } = {}) {
  return async (app: App): Promise<void> => {
    const log = app.log.child({ component: 'reach' });
    const search = app.config.tools.web_search;
    const problem = search ? providerProblem(search) : 'no tools.web_search section';
    if (search && !problem) {
      app.tools.register(createWebSearchTool(search, createSearchProvider(search)));
    } else {
      log.info(`web_search: disabled (${problem})`);
    }
    app.tools.register(createHttpTool({ config: app.config.tools.http, ...(options.resolve ? { resolve: options.resolve } : {}) }));
    app.modules.push({
      name: 'web_search',
      async doctor(): Promise<DoctorLine[]> {
        return [await doctorWebSearch(search, problem), doctorHttp(app)];
      },
    });
  };
}

export const installReach = createReachInstaller();

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

function doctorHttp(app: App): DoctorLine {
  const http = app.config.tools.http;
  const presets = Object.keys(http.presets);
  const guard = http.allow_private ? 'private addresses allowed' : `private addresses blocked${http.allow_hosts.length > 0 ? ` except ${http.allow_hosts.join(', ')}` : ''}`;
  return { status: 'ok', label: 'http', detail: `${presets.length > 0 ? `presets ${presets.join(', ')}` : 'no presets'}; ${guard}` };
}
