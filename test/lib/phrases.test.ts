import { describe, expect, it } from 'vitest';
import { parsePhrases } from '../../src/lib/phrases.js';

describe('parsePhrases', () => {
  it('finds a word regardless of case', () => {
    expect(parsePhrases('Invoice')?.find('your INVOICE is attached')).toBe('Invoice');
  });

  it('matches whole words only', () => {
    expect(parsePhrases('tax')?.find('taxonomy and syntax')).toBeUndefined();
  });

  it('finds a quoted phrase with any whitespace between its words', () => {
    expect(parsePhrases('"tax  return", dentist')?.find('About your tax\nreturn')).toBe('tax  return');
  });

  it('takes any of the phrases separated by commas or bars', () => {
    expect(parsePhrases('dentist | Acme')?.find('Message from acme corp')).toBe('Acme');
  });

  it('knows letters beyond ASCII as word characters', () => {
    expect(parsePhrases('café')?.find('cafés')).toBeUndefined();
    expect(parsePhrases('café')?.find('au café.')).toBe('café');
  });

  it('treats regular expression characters as plain text', () => {
    expect(parsePhrases('c++')?.find('I like c++ a lot')).toBe('c++');
    expect(parsePhrases('c++')?.find('I like ccc')).toBeUndefined();
    expect(parsePhrases('v1.2')?.find('release v1.2 is out')).toBe('v1.2');
  });

  it('gives nothing for a list without a phrase', () => {
    expect(parsePhrases(' , | ')).toBeUndefined();
  });
});
