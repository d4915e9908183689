import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Result } from '../lib/result.js';
import { UPLOADS, safeFileName, saveUpload } from '../workspace/uploads.js';
import type { Workspaces } from '../workspace/workspace.js';
import type { AttachmentKind, InboundAttachment } from './types.js';

/** A file on the platform, fetched only once the sender is known to be allowed. */
export interface RemoteAttachment {
  kind: AttachmentKind;
  /** For audio: "voice note", "video note", "audio file". */
  label?: string;
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
  /** Audio as downloaded, for transcription (also when it could not be stored: `saved` is then absent). */
  audio: DownloadedAudio[];
}

export interface DownloadedAudio {
  name: string;
  label: string;
  mimeType: string;
  data: Buffer;
  saved?: InboundAttachment;
  /** Why it was not stored, when it was not. */
  notSaved?: string;
}

/**
 * Downloads and stores a message's files under `data_dir/workspaces/<conversation>/uploads/`, through the
 * sandbox's workspaces when it runs (the container may have put a link or a FIFO where `uploads/` or a
 * file should be: see src/sandbox/uploads.ts).
 * Contract: never throws; a file that cannot be stored is listed in `skipped` with the reason.
 */
export async function storeAttachments(input: {
  attachments: readonly RemoteAttachment[];
  dataDir: string;
  /** The workspace the files go into: the conversation's, or a person's own in a household's group. */
  conversationId: string;
  maxBytes: number;
  log: Logger;
  /** The sandbox's workspaces (mounted, size-limited, handed to its user); absent = a plain folder. */
  workspaces?: Workspaces | undefined;
}): Promise<StoredAttachments> {
  const result: StoredAttachments = { saved: [], skipped: [], images: [], audio: [] };
  if (input.attachments.length === 0) return result;
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
      const stored = await store(input, name, data);
      const audio = attachment.kind === 'audio' ? { name, label: attachment.label ?? 'audio file', mimeType: attachment.mimeType, data } : undefined;
      if (!stored.success) {
        result.skipped.push({ name, reason: stored.error });
        if (audio) result.audio.push({ ...audio, notSaved: stored.error });
        continue;
      }
      const saved: InboundAttachment = {
        kind: attachment.kind, ...(attachment.label !== undefined ? { label: attachment.label } : {}), name, mimeType: attachment.mimeType, size: data.length,
        // The path the file tools and sandbox_exec (in /workspace) take; the host's data folder is never shown.
        path: path.posix.join(UPLOADS, stored.value),
      };
      result.saved.push(saved);
      if (attachment.kind === 'image') result.images.push({ mimeType: attachment.mimeType, data });
      if (audio) result.audio.push({ ...audio, saved });
    } catch (error) {
      input.log.warn({ err: error, file: name }, 'attachment could not be stored');
      result.skipped.push({ name, reason: `download failed: ${errorMessage(error).slice(0, 200)}` });
    }
  }
  return result;
}

/** Stores one downloaded file; the reason when it cannot be (the workspace is full). Contract: never throws. */
function store(input: { dataDir: string; conversationId: string; log: Logger; workspaces?: Workspaces | undefined }, name: string, data: Buffer): Promise<Result<string>> {
  return saveUpload({ ...input, onError: (error) => input.log.warn({ err: error, file: name }, 'attachment could not be stored') }, name, data);
}

/**
 * The note the agent reads about a message's files: name, type, size and workspace path of each; `notes` adds a word to a
 * file's line by its path (an audio file's "transcribed above").
 */
export function describeAttachments(saved: readonly InboundAttachment[], skipped: ReadonlyArray<{ name: string; reason: string }>, notes: ReadonlyMap<string, string> = new Map()): string {
  const lines: string[] = [];
  if (saved.length > 0) {
    lines.push('[The person sent these files; they are saved in this conversation\'s workspace:]');
    for (const file of saved) {
      const note = notes.get(file.path);
      lines.push(`- ${file.name} (${file.mimeType}, ${formatSize(file.size)}${note !== undefined ? `, ${note}` : ''}): ${file.path}`);
    }
  }
  for (const file of skipped) lines.push(`[A file the person sent, ${file.name}, was not saved: ${file.reason}.]`);
  return lines.join('\n');
}

/**
 * Keeps a platform file name readable but harmless: no path separators, no leading dots, no control, reordering or
 * invisible characters (`invoice\u202Efdp.exe` would show as "invoiceexe.pdf"), bounded length.
 */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
