import { AppError } from '../../errors.js';

/** What the calendar server or its settings did wrong; the message ends with what to check. */
export class CalendarError extends AppError {
  constructor(code: 'auth' | 'unreachable' | 'refused' | 'calendar_missing' | 'feed', message: string, options?: { cause?: unknown }) {
    super(`calendar_${code}`, message, options);
    this.name = 'CalendarError';
  }
}
