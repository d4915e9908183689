import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/config/folders.js';
import { renderCliReference } from '../../src/docs/cli-reference.js';
import { renderConfigReference, undocumentedKeys } from '../../src/docs/config-reference.js';

// The reference pages are made from the code (`npm run docs`); a key or a command added without regenerating them
// fails here, so the docs cannot drift from what the daemon accepts.
const page = (name: string): string => readFileSync(`${PACKAGE_ROOT}docs/reference/${name}`, 'utf8');

describe('the generated reference pages', () => {
  it('describe every key of the config schema, and no key it does not have (src/docs/key-docs.ts)', () => {
    expect(undocumentedKeys()).toEqual({ missing: [], unknown: [] });
  });

  it('docs/reference/config.md is what the schema makes (run npm run docs)', () => {
    expect(page('config.md')).toBe(renderConfigReference());
  });

  it('docs/reference/cli.md is what the command tree makes (run npm run docs)', () => {
    expect(page('cli.md')).toBe(renderCliReference());
  });
});
