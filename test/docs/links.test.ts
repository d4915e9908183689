import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/folders.js';
import { docFiles, linksOf } from './markdown.js';

// The docs are a tree a person browses: a link that leads nowhere is a dead end in it.
describe('the docs', () => {
  it('link only to files that exist (relative links, images included)', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of docFiles()) {
      for (const link of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#')) continue;
        const target = decodeURIComponent(link.split('#')[0] ?? '');
        checked += 1;
        if (!existsSync(path.join(PACKAGE_ROOT, path.dirname(file.name), target))) broken.push(`${file.name}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('are a tree: every page under docs/ is reached by a link from the README or another page', () => {
    const reached = new Set<string>();
    const files = docFiles();
    for (const file of files) {
      for (const link of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#')) continue;
        reached.add(path.normalize(path.join(path.dirname(file.name), link.split('#')[0] ?? '')));
      }
    }
    expect(files.map((file) => file.name).filter((name) => name !== 'README.md' && !reached.has(name))).toEqual([]);
  });
});
