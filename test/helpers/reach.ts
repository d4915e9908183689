// Helpers for web_search / http tests: a registry with a real loaded config and captured logs, and a recording web server.
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { AnyTool, ToolContext, ToolResult } from '../../src/tools/types.js';
import { captureLogger, tempDir } from './app.js';
import { personSaysYes } from './gate.js';

/** Loads a config through the real loader (so ${ENV} and secret collection apply). */
export function loadTestConfig(raw: Record<string, unknown>, env: Record<string, string> = {}): LoadedConfig {
  const dir = tempDir('familiar-reach-');
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, stringify({ log: { level: 'trace', format: 'json' }, ...raw }));
  return loadConfig({ configPath: file, env });
}

export interface Harness {
  registry: ToolRegistry;
  logs: string[];
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

/** A registry as the app builds it, for tools that use only config, log and secrets from the context. */
export function toolHarness(loaded: LoadedConfig, tools: AnyTool[]): Harness {
  const logs: string[] = [];
  const log = captureLogger(logs, loaded.secrets);
  const registry = new ToolRegistry({ outputChars: 200_000, gate: personSaysYes() });
  // db, memory and llm are never touched by web_search or http.
  registry.setContext({ config: loaded.config, log, secrets: loaded.secrets } as unknown as ToolContext);
  for (const tool of tools) registry.register(tool);
  return {
    registry,
    logs,
    async call(name, args) {
      const outcome = await registry.execute({ name, arguments: args, conversationId: 'c-test', turnId: 't-test', origin: { channel: 'cli', chatId: 'test' } });
      return outcome.result;
    },
  };
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebServer {
  origin: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A web server on 127.0.0.1 that records every request and answers with `route`. */
export async function startWebServer(route: Route): Promise<WebServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
