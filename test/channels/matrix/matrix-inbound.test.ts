import { describe, expect, it } from 'vitest';
import { textContent } from '../../../src/channels/matrix/matrix-content.js';
import { mentions, readMessage, stripMention } from '../../../src/channels/matrix/matrix-inbound.js';

const me = { userId: '@familiar:example.org', displayName: 'Familiar' };

describe('reading a Matrix message', () => {
  it('drops the quoted fallback older clients put above a reply', () => {
    const read = readMessage({ msgtype: 'm.text', body: '> <@bob:example.org> what time?\n> second line\n\nthree o\'clock', 'm.relates_to': { 'm.in_reply_to': { event_id: '$q' } } });
    expect(read).toMatchObject({ text: 'three o\'clock', replyTo: '$q' });
  });

  it('ignores edits, notices and unknown message types', () => {
    expect(readMessage({ msgtype: 'm.text', body: '* fixed', 'm.relates_to': { rel_type: 'm.replace', event_id: '$a' } })).toBeUndefined();
    expect(readMessage({ msgtype: 'm.notice', body: 'a bot speaking' })).toBeUndefined();
    expect(readMessage({ msgtype: 'm.location', body: 'here', geo_uri: 'geo:1,2' })).toBeUndefined();
  });

  it('reads a file with a caption (MSC2530) and a voice message as a voice note', () => {
    expect(readMessage({ msgtype: 'm.file', body: 'the invoice', filename: 'inv.pdf', url: 'mxc://x/1', info: { mimetype: 'application/pdf', size: 9 } }))
      .toMatchObject({ text: 'the invoice', file: { kind: 'file', name: 'inv.pdf', mimeType: 'application/pdf', size: 9, mxc: 'mxc://x/1' } });
    expect(readMessage({ msgtype: 'm.audio', body: 'Voice message', url: 'mxc://x/2', info: { mimetype: 'audio/ogg' }, 'org.matrix.msc3245.voice': {} }))
      .toMatchObject({ text: '', file: { kind: 'audio', label: 'voice note', name: 'Voice message.ogg' } });
  });

  it('counts a mention by m.mentions, a pill, the user id or the display name as a word', () => {
    const addressed = (content: Record<string, unknown>) => mentions(readMessage({ msgtype: 'm.text', ...content }) ?? { text: '', mentions: [], formattedBody: '' }, me);
    expect(addressed({ body: 'hey', 'm.mentions': { user_ids: [me.userId] } })).toBe(true);
    expect(addressed({ body: 'Familiar: hi', format: 'org.matrix.custom.html', formatted_body: '<a href="https://matrix.to/#/@familiar:example.org">Familiar</a>: hi' })).toBe(true);
    expect(addressed({ body: 'ask @familiar:example.org' })).toBe(true);
    expect(addressed({ body: 'familiar, what now?' })).toBe(true);
    expect(addressed({ body: 'unfamiliarity is fine' })).toBe(false);
    expect(addressed({ body: 'nobody here' })).toBe(false);
  });

  it('strips the bot\'s name from the start of the text', () => {
    expect(stripMention('Familiar: what is 2+2?', me)).toBe('what is 2+2?');
    expect(stripMention('@familiar:example.org what now', me)).toBe('what now');
  });
});

describe('a reply as Matrix HTML', () => {
  it('shows raw HTML in the model\'s text as text, and keeps the Markdown as the plain body', () => {
    const content = textContent('**hi** <img src=x onerror=alert(1)>');
    expect(content['body']).toBe('**hi** <img src=x onerror=alert(1)>');
    expect(content['formatted_body']).toBe('<p><strong>hi</strong> &lt;img src=x onerror=alert(1)&gt;</p>');
  });

  it('sends plain text without HTML when there is nothing to format', () => {
    expect(textContent('just words')).toEqual({ msgtype: 'm.text', body: 'just words', 'm.mentions': {} });
  });
});
