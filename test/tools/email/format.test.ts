import { describe, expect, it } from 'vitest';
import { formatDate } from '../../../src/tools/email/format.js';

describe('email dates', () => {
  it("shows a message's date on the daemon's clock, zero-padded, across a DST change", () => {
    expect(formatDate(new Date('2026-03-01T08:05:00Z'), 'Europe/Paris')).toBe('2026-03-01 09:05');
    expect(formatDate(new Date('2026-07-01T08:05:00Z'), 'Europe/Paris')).toBe('2026-07-01 10:05');
    expect(formatDate(new Date('2026-01-01T04:30:00Z'), 'America/New_York')).toBe('2025-12-31 23:30');
    expect(formatDate(undefined, 'UTC')).toBe('(no date)');
  });
});
