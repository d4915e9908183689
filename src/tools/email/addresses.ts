// What IMAP servers put in an ENVELOPE where a header had no usable address (RFC 3501 7.4.2 and Dovecot's own
// words): "Joe Bloggs <MISSING_MAILBOX@MISSING_DOMAIN>" is a server's placeholder, not an address anyone has.
const PLACEHOLDER_MAILBOXES = new Set(['missing_mailbox', 'invalid_address', 'unexpected_data_after_address']);
const PLACEHOLDER_HOSTS = new Set(['missing_domain', '.syntax-error.', '.missing-host-name.']);

/** True for an address a server invented because the message had none (or an unreadable one). */
export function isPlaceholderAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  const mailbox = (at < 0 ? address : address.slice(0, at)).toLowerCase();
  const host = at < 0 ? '' : address.slice(at + 1).toLowerCase();
  return PLACEHOLDER_MAILBOXES.has(mailbox) || PLACEHOLDER_HOSTS.has(host);
}

/**
 * One sender or recipient for a listing: `Name <address>`, the bare address, or `Name (no address)` when the
 * message gave only a name (or the server only a placeholder). Empty when there is nothing at all.
 */
export function describeAddress(name: string | undefined, address: string | undefined): string {
  const cleanName = (name ?? '').trim();
  const cleanAddress = address !== undefined && address !== '' && !isPlaceholderAddress(address) ? address : '';
  if (cleanName && cleanAddress) return `${cleanName} <${cleanAddress}>`;
  if (cleanAddress) return cleanAddress;
  return cleanName ? `${cleanName} (no address)` : '';
}
