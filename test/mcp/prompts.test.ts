import { describe, expect, it } from 'vitest';
import { parsePromptArguments, promptCommandName, promptTurn } from '../../src/mcp/prompts.js';

const two = { arguments: [{ name: 'city', required: true }, { name: 'state' }] };
const one = { arguments: [{ name: 'text', required: true }] };

describe('prompt arguments from a chat command', () => {
  it('takes the whole text as the value of a prompt with one argument, apostrophes and symbols included', () => {
    expect(parsePromptArguments("what's the plan | today; #1 *now*", one)).toEqual({ success: true, value: { text: "what's the plan | today; #1 *now*" } });
    expect(parsePromptArguments('"quoted whole"', one)).toEqual({ success: true, value: { text: 'quoted whole' } });
    expect(parsePromptArguments('text=named', one)).toEqual({ success: true, value: { text: 'named' } });
  });

  it('fills named and positional values, with straight or curly quotes', () => {
    expect(parsePromptArguments('state=NY "New York"', two)).toEqual({ success: true, value: { state: 'NY', city: 'New York' } });
    expect(parsePromptArguments('City=“Saint-Étienne” state=Loire', two)).toEqual({ success: true, value: { city: 'Saint-Étienne', state: 'Loire' } });
    expect(parsePromptArguments("l'Haÿ-les-Roses", two)).toEqual({ success: true, value: { city: "l'Haÿ-les-Roses" } });
  });

  it('refuses what it cannot place, saying why', () => {
    expect(parsePromptArguments('', two)).toEqual({ success: false, error: 'Missing city.' });
    expect(parsePromptArguments('city=""', two)).toEqual({ success: false, error: 'Missing city.' });
    expect(parsePromptArguments('city=a city=b', two)).toEqual({ success: false, error: '"city" is given twice.' });
    expect(parsePromptArguments('a b c', two)).toEqual({ success: false, error: 'Too many values: 3 given for 2 open arguments.' });
    expect(parsePromptArguments('city="open', two)).toMatchObject({ success: false, error: expect.stringMatching(/is not closed/) });
    expect(parsePromptArguments('x', {})).toEqual({ success: false, error: 'This prompt takes no arguments.' });
    // Keys of the object prototype are names like any other.
    expect(parsePromptArguments('constructor=x', two)).toMatchObject({ success: false, error: expect.stringMatching(/Unknown argument "constructor"/) });
  });
});

describe('prompt command names', () => {
  it('makes Telegram-valid names and keeps clashing ones apart', () => {
    const taken = new Set<string>();
    const name = (server: string, prompt: string) => {
      const made = promptCommandName(server, prompt, (candidate) => taken.has(candidate));
      if (made) taken.add(made);
      return made;
    };
    expect(name('everything', 'simple-prompt')).toBe('everything_simple_prompt');
    expect(name('Git-Hub', 'Review PR!')).toBe('git_hub_review_pr');
    expect(name('git_hub', 'review.pr')).toBe('git_hub_review_pr_2');
    const long = name('a-very-long-server-name', 'and-an-even-longer-prompt-name');
    expect(long).toMatch(/^[a-z0-9_]{1,32}$/);
    expect(name('x', '!!!')).toBeUndefined();
  });
});

describe('a prompt as a turn', () => {
  it('keeps roles when the prompt has assistant messages, and carries images', () => {
    const { turn } = promptTurn('s', 'p', {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Hi' } },
        { role: 'assistant', content: { type: 'text', text: 'Hello' } },
        { role: 'user', content: { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' } },
      ],
    });
    expect(turn.text).toBe('The prompt "p" of the MCP server s sets up this exchange; continue it as the assistant.\n\nUser: Hi\n\nAssistant: Hello\n\nUser: [image 1 from the prompt]');
    expect(turn.images).toEqual([{ mimeType: 'image/png', data: Buffer.from('png') }]);
    expect(turn.externalSources).toEqual(['MCP server s (prompt p)']);
  });
});
