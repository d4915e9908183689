import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { stripInvisible } from '../lib/invisible.js';
import type { InboundAttachment } from './types.js';

/** A file on the platform, fetched only once the sender is known to be allowed. */
export interface RemoteAttachment {
  kind: 'image' | 'file';
  name: string;
  mimeType: string;
  /** As announced by the platform (0 when unknown). */
  size: number;
  fetch(): Promise<Buffer>;
}

export interface StoredAttachments {
  saved: InboundAttachment[];
  /** Files not stored, each with the reason (too large, download failed). */
  skipped: Array<{ name: string; reason: string }>;
  /** Image bytes for the model when `llm.vision` is on. */
  images: Array<{ mimeType: string; data: Buffer }>;
}

/** Uploads live in the conversation's workspace, where the sandbox and file tools can reach them. */
export function uploadsDir(dataDir: string, conversationId: string): string {
  return path.join(dataDir, 'workspaces', conversationId, 'uploads');
}

/**
 * Downloads and stores a message's files under `data_dir/workspaces/<conversation>/uploads/`.
 * Contract: never throws; a file that cannot be stored is listed in `skipped` with the reason.
 */
export async function storeAttachments(input: {
  attachments: readonly RemoteAttachment[];
  dataDir: string;
  conversationId: string;
  maxBytes: number;
  log: Logger;
}): Promise<StoredAttachments> {
  const result: StoredAttachments = { saved: [], skipped: [], images: [] };
  if (input.attachments.length === 0) return result;
  const dir = uploadsDir(input.dataDir, input.conversationId);
  for (const attachment of input.attachments) {
    const name = safeFileName(attachment.name);
    if (attachment.size > input.maxBytes) {
      result.skipped.push({ name, reason: `larger than ${Math.round(input.maxBytes / 1048576)} MB` });
      continue;
    }
    try {
      const data = await attachment.fetch();
      if (data.length > input.maxBytes) {
        result.skipped.push({ name, reason: `larger than ${Math.round(input.maxBytes / 1048576)} MB` });
        continue;
      }
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${Date.now().toString(36)}-${name}`);
      await writeFile(file, data, { flag: 'wx' });
      result.saved.push({ kind: attachment.kind, name, mimeType: attachment.mimeType, size: data.length, path: file });
      if (attachment.kind === 'image') result.images.push({ mimeType: attachment.mimeType, data });
    } catch (error) {
      input.log.warn({ err: error, file: name }, 'attachment could not be stored');
      result.skipped.push({ name, reason: `download failed: ${errorMessage(error).slice(0, 200)}` });
    }
  }
  return result;
}

/** The note the agent reads about a message's files: path, name, type and size of each. */
export function describeAttachments(saved: readonly InboundAttachment[], skipped: ReadonlyArray<{ name: string; reason: string }>): string {
  const lines: string[] = [];
  if (saved.length > 0) {
    lines.push('[The person sent these files; they are saved in this conversation\'s workspace:]');
    for (const file of saved) lines.push(`- ${file.name} (${file.mimeType}, ${formatSize(file.size)}): ${file.path}`);
  }
  for (const file of skipped) lines.push(`[A file the person sent, ${file.name}, was not saved: ${file.reason}.]`);
  return lines.join('\n');
}

/**
 * Keeps a platform file name readable but harmless: no path separators, no leading dots, no control, reordering or
 * invisible characters (`invoice\u202Efdp.exe` would show as "invoiceexe.pdf"), bounded length.
 */
export function safeFileName(name: string): string {
  const base = stripInvisible(name.split(/[\\/]/).pop() ?? '');
  const cleaned = base.replace(/[\u0000-\u001f<>:"|?*]/g, '_').replace(/^\.+/, '').trim().slice(-120);
  return cleaned === '' ? 'file' : cleaned;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
