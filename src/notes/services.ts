import type { Logger } from '../log.js';
import type { EmailScanner } from './email-scan.js';
import type { NoteFiles } from './note-files.js';
import type { NoteIndex } from './note-index.js';
import type { TaskReminders } from './reminders.js';
import type { ScrapedPage } from './scrape.js';
import type { TaskService } from './tasks.js';
import type { Result } from '../lib/result.js';

/** What the notes part's tools and commands share (built once by `createNotesPart`). */
export interface NotesServices {
  notes: NoteFiles;
  index: NoteIndex;
  tasks: TaskService;
  reminders: TaskReminders | undefined;
  scrape: (url: string, signal?: AbortSignal) => Promise<Result<ScrapedPage>>;
  scanner: EmailScanner | undefined;
  timeZone: string;
  log: Logger;
  now: () => number;
}
