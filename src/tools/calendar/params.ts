export type Action = 'list' | 'search' | 'free_busy' | 'create' | 'update' | 'delete' | 'respond';

/** The `calendar` tool's arguments; which ones each action takes is checked in tool.ts. */
export interface CalendarParams {
  action: Action;
  from?: string;
  days?: number;
  text?: string;
  day_start?: number;
  day_end?: number;
  account?: string;
  summary?: string;
  start?: string;
  end?: string;
  all_day?: boolean;
  location?: string;
  description?: string;
  repeat?: string;
  attendees?: string[];
  alarm_minutes?: number;
  uid?: string;
  occurrence?: string;
  version?: string;
  response?: 'accepted' | 'declined' | 'tentative';
}
