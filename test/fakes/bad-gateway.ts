// What a reverse proxy (nginx, as in front of most self-hosted servers; Cloudflare's says the same) answers while the
// server behind it is down or restarting: what the fakes answer during an outage.
import type { ServerResponse } from 'node:http';

export const BAD_GATEWAY = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export function answerBadGateway(response: ServerResponse): void {
  response.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(BAD_GATEWAY) }).end(BAD_GATEWAY);
}

/** The same answer to a WebSocket upgrade, written on its socket. */
export const BAD_GATEWAY_UPGRADE = `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(BAD_GATEWAY)}\r\nconnection: close\r\n\r\n${BAD_GATEWAY}`;
