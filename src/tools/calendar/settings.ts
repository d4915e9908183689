import type { ToolsConfig } from '../../config/schema.js';

/** One CalDAV login and the calendars of it to use. */
export interface CalendarAccount {
  name: string;
  url: string;
  user: string;
  password: string;
  /** Display names or URLs; empty: every calendar the account has. */
  calendars: readonly string[];
  default?: string;
  /** The person's own addresses, lower-cased: an event organized by anyone else is outside content. */
  addresses: readonly string[];
}

/** A read-only ICS feed; everything in it is outside content. */
export interface CalendarSubscription {
  name: string;
  url: string;
}

export interface CalendarSettings {
  accounts: readonly CalendarAccount[];
  subscriptions: readonly CalendarSubscription[];
  timeoutMs: number;
  alarmDays: number;
}

export type CalendarSettingsResult = { enabled: true; settings: CalendarSettings } | { enabled: false; reason: string };

/** `tools.calendar` as the tool uses it; off (with the reason) when there is neither an account nor a feed. */
export function resolveCalendarSettings(section: ToolsConfig['calendar']): CalendarSettingsResult {
  if (!section) return { enabled: false, reason: 'no tools.calendar section' };
  if (section.accounts.length === 0 && section.subscriptions.length === 0) {
    return { enabled: false, reason: 'tools.calendar has no accounts and no subscriptions' };
  }
  const accounts = section.accounts.map((account): CalendarAccount => {
    const addresses = account.addresses.length > 0 ? account.addresses : account.user.includes('@') ? [account.user] : [];
    return {
      name: account.name, url: account.url, user: account.user, password: account.password, calendars: account.calendars,
      ...(account.default !== undefined ? { default: account.default } : {}),
      addresses: addresses.map((address) => address.toLowerCase()),
    };
  });
  return {
    enabled: true,
    settings: {
      accounts,
      // webcal:// is http(s) by another name; feeds are fetched over https unless the operator wrote http.
      subscriptions: section.subscriptions.map((feed) => ({ name: feed.name, url: feed.url.replace(/^webcal:\/\//i, 'https://') })),
      timeoutMs: section.timeout_s * 1000,
      alarmDays: section.alarm_days,
    },
  };
}
