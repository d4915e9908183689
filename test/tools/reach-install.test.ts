import { afterEach, describe, expect, it } from 'vitest';
import type { Daemon as App } from '../../src/daemon.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { startSearxngServer, startTavilyServer } from '../fakes/search-servers.js';
import { makeTestApp } from '../helpers/app.js';

const origin = { channel: 'cli', chatId: 'test', userId: 'owner' };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function appWith(tools: Record<string, unknown>): Promise<{ app: App; fake: FakeOpenAI; logs: string[] }> {
  const fake = await startOpenAiServer();
  cleanups.push(() => fake.close());
  const t = await makeTestApp(fake, { tools });
  cleanups.push(() => t.app.close(0));
  return { app: t.app, fake, logs: t.logs };
}

function logMessages(logs: string[]): string[] {
  return logs.map((line) => (JSON.parse(line) as { msg?: string }).msg ?? '');
}

describe('installing web_search and http', () => {
  it('leaves web_search out with one log line when the section is absent, and registers http anyway', async () => {
    const { app, logs } = await appWith({});
    expect(app.tools.get('web_search')).toBeUndefined();
    expect(app.tools.get('http')).toBeDefined();
    expect(logMessages(logs).filter((message) => message.startsWith('web_search:'))).toEqual(['web_search: disabled (no tools.web_search section)']);
  });

  it('leaves web_search out when tavily has no api_key', async () => {
    const { app, logs } = await appWith({ web_search: { provider: 'tavily', api_key: '${UNSET_TAVILY_KEY}' } });
    expect(app.tools.get('web_search')).toBeUndefined();
    expect(logMessages(logs)).toContain('web_search: disabled (tools.web_search.api_key is empty (set TAVILY_API_KEY or the key itself))');
  });

  it('leaves web_search out when searxng has no base_url, and registers it when it has one', async () => {
    const without = await appWith({ web_search: { provider: 'searxng' } });
    expect(without.app.tools.get('web_search')).toBeUndefined();
    const searxng = await startSearxngServer();
    cleanups.push(() => searxng.close());
    const withUrl = await appWith({ web_search: { provider: 'searxng', base_url: searxng.baseUrl } });
    expect(withUrl.app.tools.get('web_search')).toBeDefined();
  });

  it('adds doctor lines for web search and http', async () => {
    const searxng = await startSearxngServer();
    cleanups.push(() => searxng.close());
    const { app } = await appWith({ web_search: { provider: 'searxng', base_url: searxng.baseUrl }, http: { presets: { ha: { base_url: 'http://ha.lan:8123', headers: { Authorization: 'Bearer abcdefgh' } } } } });
    const module = app.parts.find((entry) => entry.name === 'web_search');
    const lines = await module?.doctor?.();
    expect(lines).toEqual([
      { status: 'ok', label: `web_search: searxng at ${searxng.baseUrl} answers` },
      { status: 'ok', label: 'http', detail: 'presets ha; private addresses blocked' },
    ]);
    searxng.fail('json_disabled');
    expect((await module?.doctor?.())?.[0]).toMatchObject({ status: 'fail', detail: 'JSON output is disabled (403)' });
  });
});

describe('web_search end to end through the fake LLM', () => {
  it('the model searches and its answer carries a result title', async () => {
    const tavily = await startTavilyServer();
    cleanups.push(() => tavily.close());
    const { app, fake } = await appWith({ web_search: { provider: 'tavily', api_key: tavily.apiKey, base_url: tavily.baseUrl } });
    // The fake model answers from what the tool returned: the first numbered result's title.
    fake.handle((request) => {
      const toolMessage = request.body.messages.filter((message) => message.role === 'tool').at(-1);
      if (!toolMessage) return { toolCalls: [{ name: 'web_search', arguments: { query: 'familiar folklore', max_results: 2 } }] };
      const title = /^1\. (.+)$/m.exec(String(toolMessage.content))?.[1];
      return { content: `The top result is "${title ?? 'nothing'}".` };
    });
    const result = await app.turns.start({ text: 'look up familiars in folklore', origin, source: 'cli' });
    expect(result.status).toBe('ok');
    expect(result.text).toBe('The top result is "Familiars in folklore".');
    expect(result.externalSources).toEqual(['web_search:tavily']);
    expect(tavily.requests[0]?.body).toMatchObject({ query: 'familiar folklore', max_results: 2 });
    const offered = fake.requests[0]?.body.tools?.map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(['web_search', 'http']));
  });
});
