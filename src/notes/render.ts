import { existsSync } from 'node:fs';
import type { Browser, Route } from 'playwright-core';
import { fetchGuarded, HttpFetchError, type GuardedOptions, type GuardedResponse } from '../net/fetch-guarded.js';
import { failure, succeed, type Result } from '../lib/result.js';

/** Where Debian (and most distributions) put chromium; the first that exists is used. */
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export const INSTALL_HINT = 'render: true needs a chromium browser: on Debian or Ubuntu `sudo apt-get install chromium`, then try again (or call web_scrape without render).';

// Chromium makes no connection of its own: every request is answered by the route below, through the guard. A dead
// proxy (with loopback no longer bypassed) catches anything that slips past the route, such as a prefetch.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp', '--disable-features=DnsOverHttps,NetworkPrediction',
];

// What a page needs to build its text; pictures, media and fonts are left out (nothing to read, and fewer requests).
const SKIPPED = new Set(['image', 'media', 'font', 'websocket', 'eventsource', 'manifest', 'ping', 'texttrack', 'beacon']);

export interface RenderedPage {
  /** The document's address after redirects. */
  url: URL;
  status: number;
  /** The DOM as the page's scripts left it. */
  html: string;
}

/** The system's chromium, or undefined when none is installed. */
export function findChromium(candidates: readonly string[] = CHROMIUM_PATHS): string | undefined {
  return candidates.find((candidate) => existsSync(candidate));
}

export interface Renderer {
  /** Contract: never throws. */
  render(url: URL): Promise<Result<RenderedPage>>;
  /** Closes the browser, if one was launched. */
  close(): Promise<void>;
}

/**
 * Pages loaded in headless chromium (through playwright-core), each returned as its DOM once its scripts have run.
 * Every request a page makes — the document, each redirect hop, scripts, XHR — is fetched by `fetchGuarded` with the
 * http tool's address rules and handed to the browser, so the SSRF guard holds for all of them; WebSockets, service
 * workers and downloads are refused. The browser is launched for the first page and kept until `close()` (a crawl
 * shares one); each page gets a fresh context (no cookies or storage carried from one page to the next).
 */
export function openRenderer(guard: GuardedOptions, options: { signal?: AbortSignal | undefined; chromium?: readonly string[] } = {}): Renderer {
  const { signal } = options;
  let browser: Promise<Result<Browser>> | undefined;
  const launch = async (): Promise<Result<Browser>> => {
    const executablePath = findChromium(options.chromium);
    if (!executablePath) return failure(INSTALL_HINT);
    let playwright: typeof import('playwright-core');
    try {
      playwright = await import('playwright-core');
    } catch {
      return failure('render: true needs the playwright-core package, which is missing from this installation; reinstall Familiar (npm install).');
    }
    try {
      return succeed(await playwright.chromium.launch({ executablePath, args: ARGS, headless: true, timeout: guard.timeoutMs }));
    } catch (error) {
      return failure(`Could not start chromium (${executablePath}): ${(error as Error).message.split('\n')[0] ?? ''}`);
    }
  };
  const close = async () => {
    const launched = await browser;
    browser = undefined;
    if (launched?.success) await launched.value.close().catch(() => undefined);
  };
  const onAbort = () => void close();
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    async render(url) {
      if (!findChromium(options.chromium)) return failure(INSTALL_HINT);
      try {
        // The document first, its redirects followed here (each hop guarded), so the browser loads it at its final
        // address and resolves its relative links from there; nothing is launched for an address the guard refuses.
        const document = await fetchGuarded({ method: 'GET', url, headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.3' } }, { ...guard, ...(signal ? { signal } : {}) });
        if (document.status >= 400) return failure(`${url.href} answered ${document.status} ${document.statusText}${document.status === 404 ? '; check the URL' : ''}.`);
        browser ??= launch();
        const launched = await browser;
        if (!launched.success) return launched;
        return await load(launched.value, document, guard, signal);
      } catch (error) {
        if (signal?.aborted) return failure('The page was not rendered: the call was cancelled.');
        if (error instanceof HttpFetchError) return failure(`Could not read ${url.href}: ${error.message}.${error.kind === 'blocked' ? ' Do not retry this address; the person can allow a host in tools.http.allow_hosts.' : ''}`);
        return failure(`Could not render ${url.href}: ${(error as Error).message.split('\n')[0] ?? ''}`);
      }
    },
    async close() {
      signal?.removeEventListener('abort', onAbort);
      await close();
    },
  };
}

/** One page: renders it with a renderer of its own, closed before returning. Contract: never throws. */
export async function renderPage(url: URL, guard: GuardedOptions, options: { signal?: AbortSignal | undefined; chromium?: readonly string[] } = {}): Promise<Result<RenderedPage>> {
  const renderer = openRenderer(guard, options);
  try {
    return await renderer.render(url);
  } finally {
    await renderer.close();
  }
}

/** Loads the fetched document in a fresh context of `browser`, every further request routed through the guard. */
async function load(browser: Browser, document: GuardedResponse, guard: GuardedOptions, signal: AbortSignal | undefined): Promise<Result<RenderedPage>> {
  const context = await browser.newContext({ acceptDownloads: false, serviceWorkers: 'block', javaScriptEnabled: true });
  try {
    const prefetched = new Map([[document.url.href, document]]);
    await context.routeWebSocket(/.*/, (socket) => socket.close({ code: 1008, reason: 'WebSockets are not opened when rendering' }));
    await context.route('**/*', (route) => answer(route, guard, signal, prefetched));
    const page = await context.newPage();
    page.setDefaultTimeout(guard.timeoutMs);
    const response = await page.goto(document.url.href, { waitUntil: 'load', timeout: guard.timeoutMs });
    if (!response) return failure(`${document.url.href} gave no page.`);
    // Scripts that fetch their text after load: wait for the network to go quiet, a short while at most.
    await page.waitForLoadState('networkidle', { timeout: Math.min(guard.timeoutMs, 3000) }).catch(() => undefined);
    return succeed({ url: new URL(page.url()), status: response.status(), html: await page.content() });
  } finally {
    await context.close().catch(() => undefined);
  }
}

/**
 * One request of the page: refused, or fetched through the guard with its redirects followed there (a redirect handed
 * to chromium would be followed by chromium itself, outside this route).
 */
async function answer(route: Route, guard: GuardedOptions, signal: AbortSignal | undefined, prefetched: Map<string, GuardedResponse>): Promise<void> {
  const request = route.request();
  let target: URL;
  try {
    target = new URL(request.url());
  } catch {
    await route.abort('addressunreachable');
    return;
  }
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || SKIPPED.has(request.resourceType())) {
    await route.abort('blockedbyclient');
    return;
  }
  try {
    const headers = { ...(await request.allHeaders()) };
    for (const name of Object.keys(headers)) if (name.startsWith(':')) delete headers[name];
    const body = request.postDataBuffer();
    const ready = request.isNavigationRequest() ? prefetched.get(target.href) : undefined;
    prefetched.delete(target.href);
    const response = ready ?? (await fetchGuarded({ method: request.method(), url: target, headers, ...(body ? { body } : {}) }, { ...guard, ...(signal ? { signal } : {}) }));
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined || name === 'content-encoding' || name === 'content-length' || name === 'transfer-encoding' || name === 'set-cookie') continue;
      responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    await route.fulfill({ status: response.status, headers: responseHeaders, body: response.body });
  } catch (error) {
    await route.abort(error instanceof HttpFetchError && error.kind === 'blocked' ? 'blockedbyclient' : 'failed').catch(() => undefined);
  }
}
