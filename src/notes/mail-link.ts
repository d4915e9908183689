/**
 * A task made from mail keeps its message as an RFC 2392 `mid:` link on its line (`<mid:abc%40example.org>`, a
 * CommonMark autolink, so editors show it as a link). The Message-ID outlives folder moves and UID changes, so the
 * task can be answered later: `email` action reply {message_id}, or `/email-reply TASK text`; a reply sent that
 * way is recorded on the task (`↩ replied 2026-11-27`).
 */
export function mailLink(messageId: string): string {
  return `<mid:${encodeURIComponent(messageId.trim().replace(/^<|>$/g, '')).replace(/%40/g, '@')}>`;
}

/** The Message-ID a task's line links to, if any. */
export function linkedMessageId(text: string): string | undefined {
  const link = /<mid:([^>\s]+)>/.exec(text)?.[1];
  if (link === undefined) return undefined;
  try {
    return decodeURIComponent(link);
  } catch {
    return undefined;
  }
}
