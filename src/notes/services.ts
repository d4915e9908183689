import type { Logger } from '../log.js';
import type { EmailScanner } from './email-scan.js';
import type { NoteFiles } from './note-files.js';
import type { NoteIndex } from './note-index.js';
import type { TaskReminders } from './reminders.js';
import type { Crawl, CrawlOptions } from './crawl.js';
import type { ScrapedPage } from './scrape.js';
import type { SummaryModel } from './summarize.js';
import type { TaskService } from './tasks.js';
import type { Result } from '../lib/result.js';

/** What the notes part's tools and commands share (built once by `createNotesPart`). */
export interface NotesServices {
  notes: NoteFiles;
  index: NoteIndex;
  tasks: TaskService;
  reminders: TaskReminders | undefined;
  scrape: (url: string, signal?: AbortSignal) => Promise<Result<ScrapedPage>>;
  /** web_scrape with its options: the page and, with depth, the same site's pages it links to. */
  crawl: (url: string, options: Omit<CrawlOptions, 'http' | 'resolve'>) => Promise<Result<Crawl>>;
  /** The budgeted model for web_scrape's summaries (absent without an LLM). */
  summary: SummaryModel | undefined;
  scanner: EmailScanner | undefined;
  timeZone: string;
  log: Logger;
  now: () => number;
}
