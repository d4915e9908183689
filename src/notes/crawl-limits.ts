// A crawl's limits, which web_scrape's schema states too; apart from crawl.ts so that declaring the tool does not load
// the crawler (tldts' list of public suffixes and robots-parser load with the first crawl).

/** Links followed away from the first page, at most. */
export const MAX_DEPTH = 3;
/** Pages read in one crawl, at most. */
export const MAX_PAGES = 20;
