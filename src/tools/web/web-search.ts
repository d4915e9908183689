import { wrapOutside } from '../external.js';
import type { NativeTool, ToolResult } from '../types.js';
import { createSearchProvider, SearchProviderError, type SearchProvider, type SearchResult, type WebSearchConfig } from './providers.js';

export interface WebSearchParams {
  query: string;
  max_results?: number;
}

const SNIPPET_CHARS = 400;

/** `web_search {query, max_results?}`: a numbered list of title, URL and snippet, marked as outside content. */
export function createWebSearchTool(config: WebSearchConfig, provider: SearchProvider = createSearchProvider(config)): NativeTool<WebSearchParams> {
  return {
    name: 'web_search',
    description: `Search the web (${provider.name}). Returns a numbered list of results with title, URL and a snippet; fetch a page with the http tool to read more.`,
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 400, description: 'What to search for.' },
        max_results: { type: 'integer', minimum: 1, maximum: 20, description: `How many results (default ${config.max_results}).` },
      },
      required: ['query'],
      additionalProperties: false,
    },
    external: true,
    vouches: true,
    // The query goes to the search provider: in a tainted turn it must be words the person or the outside content wrote.
    effects: (params: { query?: string }) => [{ kind: 'egress', ...(typeof params.query === 'string' ? { query: params.query } : {}), what: 'a web search' }],
    timeoutMs: (config.timeout_s + 5) * 1000,
    async execute(params, ctx): Promise<ToolResult> {
      const query = params.query.trim();
      if (!query) return { success: false, output: 'The query is empty; say what to search for.' };
      const maxResults = params.max_results ?? config.max_results;
      let results: SearchResult[];
      try {
        results = await provider.search(query, { maxResults, signal: ctx.signal });
      } catch (error) {
        if (!(error instanceof SearchProviderError)) throw error;
        ctx.log.warn({ provider: provider.name, kind: error.kind, status: error.status }, 'web search failed');
        return { success: false, output: describeFailure(provider.name, error) };
      }
      ctx.log.debug({ provider: provider.name, results: results.length }, 'web search');
      const usable = results.filter((result) => result.url).slice(0, maxResults);
      if (usable.length === 0) return { success: true, output: `No results for "${query}" (${provider.name}). Try other or fewer words.` };
      // The results are the provider's and the pages' words; the line naming the query is ours (an echo of the
      // model's own words must never read as a third party's, see src/gate/addresses.ts).
      const outside = wrapOutside(`web_search:${provider.name}`, formatResults(usable));
      return {
        success: true,
        output: `Results for "${query}":\n${outside.wrapped}`,
        externalSource: `web_search:${provider.name}`,
        thirdParty: [outside.shown],
      };
    },
  };
}

export function formatResults(results: readonly SearchResult[]): string {
  const lines: string[] = [];
  results.forEach((result, index) => {
    lines.push(`${index + 1}. ${oneLine(result.title) || '(untitled)'}`);
    lines.push(`   ${result.url}${result.published ? ` (${result.published.slice(0, 10)})` : ''}`);
    const snippet = oneLine(result.snippet);
    if (snippet) lines.push(`   ${snippet.length > SNIPPET_CHARS ? `${snippet.slice(0, SNIPPET_CHARS)}…` : snippet}`);
  });
  return lines.join('\n');
}

function describeFailure(provider: string, error: SearchProviderError): string {
  switch (error.kind) {
    case 'auth':
      return `Web search failed: ${provider} refused the API key (401). The owner must check tools.web_search.api_key; do not retry.`;
    case 'rate_limit':
      return `Web search is rate limited by ${provider} (429)${error.retryAfterS !== undefined ? `; retry after ${error.retryAfterS} s` : '; wait a while before retrying'}.`;
    case 'timeout':
      return `Web search timed out: ${provider} gave ${error.message}. Try again later or with a shorter query.`;
    case 'unavailable':
      return `Web search failed: ${provider} had a server error (${error.message}). Try again later.`;
    case 'network':
      return `Web search failed: ${error.message}. Check tools.web_search.base_url if this keeps happening.`;
    case 'bad_response':
      return `Web search failed: ${provider} sent an unexpected answer (${error.message}). Check tools.web_search.base_url.`;
    case 'refused':
      if (provider === 'searxng' && error.status === 403) {
        return 'Web search failed: searxng refused JSON output (403). The owner must enable the json format (search.formats: [html, json]) in the instance\'s settings.yml.';
      }
      return `Web search failed: ${provider} refused the request (${error.message}).`;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
