// The docs as marked reads them: every Markdown file of the README and docs/, with its links and its code blocks.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { marked, type Token } from 'marked';
import { PACKAGE_ROOT } from '../../src/config/folders.js';

export interface DocFile {
  /** Relative to the package root, e.g. `docs/operations/docker.md`. */
  name: string;
  tokens: Token[];
}

export function docFiles(): DocFile[] {
  const docs = readdirSync(path.join(PACKAGE_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs].sort().map((name) => ({ name, tokens: marked.lexer(readFileSync(path.join(PACKAGE_ROOT, name), 'utf8')) }));
}

/** Every link and image target in a file (Markdown, and `src`/`href` in raw HTML); code is not searched. */
export function linksOf(file: DocFile): string[] {
  const found: string[] = [];
  // walkTokens returns the callbacks' results (for async extensions); these return nothing.
  void marked.walkTokens(file.tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') found.push((token as { href: string }).href);
    if (token.type === 'html') for (const match of (token as { text: string }).text.matchAll(/\b(?:src|href)="([^"]+)"/g)) found.push(match[1] ?? '');
  });
  return found;
}

/** The shell code blocks of a file, as lines. */
export function shellLinesOf(file: DocFile): string[] {
  const lines: string[] = [];
  // walkTokens returns the callbacks' results (for async extensions); these return nothing.
  void marked.walkTokens(file.tokens, (token) => {
    if (token.type === 'code' && ['sh', 'bash', 'shell', ''].includes((token as { lang?: string }).lang ?? '')) lines.push(...(token as { text: string }).text.split('\n'));
  });
  return lines;
}
