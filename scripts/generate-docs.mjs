// Writes the generated reference pages from the built code (`npm run docs` builds first): docs/reference/config.md
// from the config schema and its key descriptions, docs/reference/cli.md from the command tree. test/docs checks that
// the committed pages are what this writes, so they cannot drift from the code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCliReference } from '../dist/docs/cli-reference.js';
import { renderConfigReference, undocumentedKeys } from '../dist/docs/config-reference.js';

const reference = fileURLToPath(new URL('../docs/reference/', import.meta.url));
const { missing, unknown } = undocumentedKeys();
if (missing.length > 0 || unknown.length > 0) {
  if (missing.length > 0) console.error(`config keys without a description in src/docs/key-docs.ts: ${missing.join(', ')}`);
  if (unknown.length > 0) console.error(`descriptions in src/docs/key-docs.ts of keys the schema does not have: ${unknown.join(', ')}`);
  process.exit(1);
}
mkdirSync(reference, { recursive: true });
writeFileSync(`${reference}config.md`, renderConfigReference());
writeFileSync(`${reference}cli.md`, renderCliReference());
console.log('wrote docs/reference/config.md and docs/reference/cli.md');
