import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The console's static files: one style sheet, one script, the icons (the PNGs are the installed app's, made by
 * scripts/make-icons.mjs) and the service worker's code. No build step: they are served as written.
 */
const FILES = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'icon.svg': 'image/svg+xml',
  'icon-192.png': 'image/png',
  'icon-512.png': 'image/png',
  'sw.js': 'text/javascript; charset=utf-8',
} as const;

export type AssetName = keyof typeof FILES;

export interface Asset {
  contentType: string;
  body: Buffer;
  /** A hash of the content: URLs carry it, so a new version is never served from a stale cache. */
  version: string;
}

export interface Assets {
  get(name: string): Asset | undefined;
  urls: { css: string; js: string; icon: string; icon192: string; icon512: string };
}

/**
 * Reads the files once (they are small) from the package's `assets/console/`. This module sits two folders below
 * the package root in the sources (src/console/) and in the build (dist/console/, dist/bundle/), so the same
 * relative URL finds them.
 */
export function loadAssets(dir: URL = new URL('../../assets/console/', import.meta.url)): Assets {
  const assets = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(new URL(name, dir));
    assets.set(name, { contentType, body, version: createHash('sha256').update(body).digest('hex').slice(0, 12) });
  }
  const url = (name: AssetName) => `/console/assets/${name}?v=${assets.get(name)?.version ?? '0'}`;
  return {
    get: (name) => (Object.hasOwn(FILES, name) ? assets.get(name) : undefined),
    urls: { css: url('console.css'), js: url('console.js'), icon: url('icon.svg'), icon192: url('icon-192.png'), icon512: url('icon-512.png') },
  };
}
