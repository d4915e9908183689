/** One attendee of an event, as the server has it. */
export interface Attendee {
  address: string;
  name?: string;
  /** NEEDS-ACTION, ACCEPTED, DECLINED, TENTATIVE. */
  partstat: string;
}

/** One occurrence of an event (a single event is its own only occurrence), expanded on the client. */
export interface Occurrence {
  /** Where it lives: the account (or subscription) and calendar names, and the resource's URL and ETag. */
  source: string;
  calendar: string;
  href: string;
  etag?: string;
  uid: string;
  /** For an occurrence of a series: its original start (ISO, UTC), which names it in update, delete and respond. */
  recurrenceId?: string;
  /** Instants in ms; an all-day event runs from local midnight of its first day to that of the day after its last. */
  start: number;
  end: number;
  allDay: boolean;
  /** `YYYY-MM-DD` of an all-day event's first and last day. */
  days?: { first: string; last: string };
  summary: string;
  location?: string;
  description?: string;
  organizer?: string;
  attendees: Attendee[];
  status?: string;
  recurring: boolean;
  /**
   * Makes the person busy in free_busy: not marked free (TRANSP:TRANSPARENT, as clients mark birthdays and holidays),
   * not cancelled, and not declined by the person.
   */
  busy: boolean;
  /** Written by someone else (organized by another person, or from a subscription): outside content. */
  outside: boolean;
  /** VALARM triggers, as minutes before the start (negative: after), with their text. */
  alarms: Array<{ minutesBefore: number; text?: string; index: number }>;
}

/** A calendar resource as read from the server. */
export interface CalendarObject {
  href: string;
  etag?: string;
  data: string;
}
