// A small web site on 127.0.0.1 for web_scrape's crawl and rendering tests, reached by the name `site.test` (and
// `docs.site.test`) through a resolver the daemon is given; the SSRF guard lets only those names through
// (tools.http.allow_hosts), so a hop to 127.0.0.1 itself is refused as a loopback address.
import type { Resolver } from '../../src/net/fetch-guarded.js';
import { startWebServer, type WebServer } from './reach.js';

export interface SmallSite extends WebServer {
  /** http://site.test:PORT */
  base: string;
  /** The paths asked for, in order (robots.txt included). */
  paths(): string[];
}

/** `site.test` and its subdomains resolve to 127.0.0.1; any other name is not found. */
export const siteDns: Resolver = async (hostname) => {
  if (hostname === 'site.test' || hostname.endsWith('.site.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

/** What a test's config needs to reach the site: its names allowed, nothing else private. */
export const SITE_HTTP = { allow_hosts: ['site.test', '*.site.test'] };

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1>${body}</article></main></body></html>`;
const words = (topic: string) => `<p>${`This page is about ${topic}, written out at length so that a reader finds an article here. `.repeat(6)}</p>`;

export async function startSmallSite(): Promise<SmallSite> {
  let port = 0;
  const pages = (): Record<string, { status?: number; type?: string; location?: string; body?: string }> => ({
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' },
    '/': { body: page('Home', `${words('the home page')}<nav><a href="/a">A</a> <a href="/b#top">B</a> <a href="/private/secret">Private</a> <a href="/moved">Moved</a> <a href="/sneaky">Sneaky</a> <a href="https://elsewhere.example/x">Elsewhere</a> <a href="http://docs.site.test:${port}/guide">Guide</a></nav><aside class="sidebar"><p>SIDEBAR TEXT</p></aside>`) },
    '/a': { body: page('Page A', `${words('apples')}<a href="/a/deeper">Deeper</a>`) },
    '/a/deeper': { body: page('Deeper', words('roots')) },
    '/b': { body: page('Page B', words('bananas')) },
    '/private/secret': { body: page('Secret', words('a secret that robots.txt keeps out')) },
    '/moved': { status: 301, location: '/b' },
    // A redirect to the machine itself, by address: the guard must refuse this hop.
    '/sneaky': { status: 302, location: `http://127.0.0.1:${port}/internal` },
    '/internal': { body: page('Internal', words('INTERNAL ADMIN DATA')) },
    '/guide': { body: page('Guide', words('the documentation')) },
    '/script': {
      body: '<!doctype html><html><head><title>Built by script</title></head><body><main id="app"></main><script>'
        + 'const text = ["Rendered", "in", "the", "browser"].join(" ");'
        + 'document.getElementById("app").innerHTML = "<article><h1>" + text + "</h1><p>" + (text + " by its own script, so only a browser sees it. ").repeat(8) + "</p><a href=\\"/a\\">Apples</a></article>";'
        + 'fetch("http://127.0.0.1:' + port + '/internal").then((r) => r.text()).then((t) => { document.body.append("LEAKED " + t); }).catch(() => { document.body.append("FETCH REFUSED"); });'
        + '</script></body></html>',
    },
  });
  const server = await startWebServer((req, res) => {
    const found = pages()[(req.url ?? '/').split('?')[0] ?? '/'];
    if (!found) {
      res.statusCode = 404;
      res.end('not found');
      return;
    }
    res.statusCode = found.status ?? 200;
    if (found.location) res.setHeader('location', found.location);
    res.setHeader('content-type', found.type ?? 'text/html; charset=utf-8');
    res.end(found.body ?? '');
  });
  port = server.port;
  return { ...server, base: `http://site.test:${port}`, paths: () => server.seen.map((request) => request.url) };
}
