import type { Logger } from '../../log.js';
import type { RemoteAttachment } from '../attachments.js';
import type { AttachmentKind } from '../types.js';
import type { SlackFile } from './slack-events.js';

/**
 * The files of a message as attachments the router fetches once the sender is known to be allowed (attachments.ts
 * stores them). A clip recorded in the app (`slack_audio`) or any audio file is heard when voice.stt is set.
 * Contract: never throws; the bot token goes only to Slack's own hosts (see mayCarryToken).
 */
export function remoteFiles(files: readonly SlackFile[], deps: { token: string; apiUrl: string; log: Logger }): RemoteAttachment[] {
  return files.map((file): RemoteAttachment => {
    const mimeType = file.mimetype ?? 'application/octet-stream';
    const clip = file.subtype === 'slack_audio';
    const kind: AttachmentKind = clip || mimeType.startsWith('audio/') ? 'audio' : mimeType.startsWith('image/') ? 'image' : 'file';
    const url = file.url_private_download ?? file.url_private ?? undefined;
    return {
      kind,
      ...(kind === 'audio' ? { label: clip ? 'voice clip' : 'audio file' } : {}),
      name: file.name ?? file.title ?? `${file.id}`,
      mimeType,
      size: file.size ?? 0,
      fetch: async () => {
        if (url === undefined) throw new Error('Slack gave no download address for this file');
        if (!mayCarryToken(url, deps.apiUrl)) {
          deps.log.warn({ file: file.id }, 'slack: a file address outside Slack\'s hosts was not fetched (the bot token would go with it)');
          throw new Error('the file\'s address is not on Slack\'s servers');
        }
        // Private files need the bot token (fetch drops it when a redirect leaves the host).
        const response = await fetch(url, { headers: { Authorization: `Bearer ${deps.token}` }, signal: AbortSignal.timeout(60_000) });
        if (!response.ok) throw new Error(`file download returned HTTP ${response.status}`);
        return Buffer.from(await response.arrayBuffer());
      },
    };
  });
}

/**
 * Whether a download address may be sent the bot token: the Web API's host or one of its subdomains
 * (`files.slack.com` for `slack.com`), over HTTPS unless the API itself is plain HTTP (a local server).
 */
export function mayCarryToken(url: string, apiUrl: string): boolean {
  let target: URL;
  let api: URL;
  try {
    target = new URL(url);
    api = new URL(apiUrl);
  } catch {
    return false;
  }
  if (target.protocol !== 'https:' && !(api.protocol === 'http:' && target.protocol === 'http:')) return false;
  return target.hostname === api.hostname || target.hostname.endsWith(`.${api.hostname}`);
}
