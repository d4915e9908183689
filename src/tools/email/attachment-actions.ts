import { saveUpload, safeFileName, UPLOADS } from '../../workspace/uploads.js';
import { fail, ok, type ToolCallContext, type ToolResult, workspaceIdOf } from '../types.js';
import { MAX_ATTACHMENT_BYTES } from './compose.js';
import { formatSize } from './format.js';
import { fetchMessage } from './mailbox.js';
import { uidOf } from './read-actions.js';
import { attachmentsOf } from './read.js';
import type { EmailParams, EmailToolDeps } from './types.js';

/**
 * `save_attachment`: one file of a message into the conversation's workspace, under `uploads/` as a file the person
 * sent would be (a new name, never over an existing file), so the file tools and the sandbox can open it. What it
 * holds is the sender's, like the message: outside content wherever it is read.
 */
export async function saveAttachment(deps: EmailToolDeps, params: EmailParams, ctx: ToolCallContext): Promise<ToolResult> {
  const folder = params.folder ?? 'INBOX';
  const found = await uidOf(deps.session, folder, params);
  if (!found.success) return fail(found.error);
  const uid = found.value;
  const raw = await fetchMessage(deps.session, folder, uid, { markSeen: false });
  if (!raw) return fail(`No message with uid ${uid} in ${folder}. Use list or search to find its uid.`);
  const files = await attachmentsOf(raw.source);
  if (files.length === 0) return fail(`Message uid ${uid} has no attachments.`);
  const names = files.map((file) => `"${file.filename}"`).join(', ');
  const wanted = params.filename?.trim().toLowerCase();
  const chosen = wanted === undefined ? (files.length === 1 ? files[0] : undefined) : files.find((file) => file.filename.toLowerCase() === wanted);
  if (!chosen) {
    return fail(wanted === undefined ? `Message uid ${uid} has ${files.length} attachments (${names}); say which with "filename".` : `Message uid ${uid} has no attachment "${params.filename ?? ''}"; it has ${names}.`);
  }
  if (chosen.content.length > MAX_ATTACHMENT_BYTES) return fail(`"${chosen.filename}" is ${formatSize(chosen.content.length)}, over the ${formatSize(MAX_ATTACHMENT_BYTES)} a saved attachment may be.`);
  const name = safeFileName(chosen.filename);
  const saved = await saveUpload({
    dataDir: ctx.config.data_dir, conversationId: workspaceIdOf(ctx), workspaces: deps.workspaces,
    onError: (error) => ctx.log.warn({ err: error, file: name }, 'attachment could not be saved'),
  }, name, chosen.content);
  if (!saved.success) return fail(`"${chosen.filename}" was not saved: ${saved.error}.`);
  const where = `${UPLOADS}/${saved.value}`;
  ctx.log.info({ uid, folder, file: where, bytes: chosen.content.length }, 'email attachment saved');
  return ok(`Saved "${chosen.filename}" (${chosen.contentType}, ${formatSize(chosen.content.length)}) from message uid ${uid} as ${where} in the workspace.`);
}
