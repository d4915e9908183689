import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { unknownKeyReason } from '../../src/config/suggest.js';

// After an upgrade, a key a release renamed is named with its new name, not guessed at.
describe('a renamed config key', () => {
  it('is reported with its new name and the release that renamed it', () => {
    const renamed = [{ from: 'llm.retries', to: 'llm.max_retries', since: '0.2.0' }];
    expect(unknownKeyReason(configSchema(), ['llm'], 'retries', renamed))
      .toBe("renamed to llm.max_retries in Familiar 0.2.0: change the key's name (familiar config validate lists every such key)");
  });

  it('leaves other unknown keys to the did-you-mean', () => {
    expect(unknownKeyReason(configSchema(), ['llm'], 'modle', [])).toBe('unknown key; did you mean "model"?');
  });
});
