// What the daemon says later about text made from outside content: where it came from, with no live link the person
// did not write.
import { describe, expect, it } from 'vitest';
import { describeSource, inertLinks, renderOutside } from '../../src/delivery/outside.js';

describe('a delivery made from outside content', () => {
  it('makes every link inert: scheme links, masked Markdown links, autolinks, bare domains, e-mail addresses', () => {
    const text = 'Confirm within 1 hour at https://evil.example/confirm?id=1, [here](https://evil.example/x), <https://auto.example/>, evil.online/y, bank-secure.com or help@evil.com.';
    expect(inertLinks(text)).toBe('Confirm within 1 hour at hxxps://evil[.]example/confirm?id=1, here (hxxps://evil[.]example/x), hxxps://auto[.]example/, evil[.]online/y, bank-secure[.]com or help[@]evil[.]com.');
  });

  it('keeps the links the person wrote live', () => {
    expect(renderOutside('See https://my.example/a and https://evil.example/b', ['http:https://evil.example'], 'check https://my.example/a daily'))
      .toBe('↪ From outside content (a web page at evil.example): not my own words; links are shown inert.\nSee https://my.example/a and hxxps://evil[.]example/b');
  });

  it('names its sources as a person reads them', () => {
    expect(describeSource('http:https://news.example')).toBe('a web page at news.example');
    expect(describeSource('https://news.example/article')).toBe('a web page at news.example');
    expect(describeSource('web_search:tavily')).toBe('web search results');
    expect(describeSource('email:me@x.example/INBOX')).toBe('mail in me@x.example/INBOX');
    expect(describeSource('mcp:github')).toBe('the MCP server github');
  });
});
