/**
 * The channels where the owner sits: the terminal (`familiar jobs`, `familiar chat`, `familiar ask`: channel `cli`)
 * and the local web console (channel `console`, behind a login link only the terminal can print). What is made
 * there belongs to the owner, not to a chat: the owner sees and changes every job, and a skill run there uses the
 * skill's own conversation rather than a chat's.
 */
export const OWNER_CHANNELS: ReadonlySet<string> = new Set(['cli', 'console']);
