import { randomBytes } from 'node:crypto';
import { digest } from '../auth.js';
import { tokensEqual } from '../security.js';

/** How many questions' tokens are kept at most (each goes when its question ends). */
const MAX_OPEN = 200;

/**
 * One-time tokens that let a notification's Approve or Deny answer one approval question. A token is random (256
 * bits), kept only as a hash, bound to its question's id, and spent by its first use — whichever answer it carries;
 * it goes with its question when that ends. It reaches only the subscribed devices, inside the RFC 8291-encrypted
 * payload that the push service cannot read. Memory only: questions do not outlive the daemon either.
 */
export class ApprovalTokens {
  private readonly hashes = new Map<string, string>();

  issue(questionId: string): string {
    const token = randomBytes(32).toString('base64url');
    this.hashes.set(questionId, digest(token));
    if (this.hashes.size > MAX_OPEN) this.hashes.delete(this.hashes.keys().next().value ?? '');
    return token;
  }

  /** True once for the right token of an open question; every later call (a replay) is false. */
  spend(questionId: string, token: string): boolean {
    const hash = this.hashes.get(questionId);
    if (hash === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token) || !tokensEqual(digest(token), hash)) return false;
    this.hashes.delete(questionId);
    return true;
  }

  forget(questionId: string): void {
    this.hashes.delete(questionId);
  }
}
