import { decodeHTMLStrict } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';

const CODE_NOTE = 'The code is in the written reply.';
const TABLE_NOTE = 'The table is in the written reply.';
const REST_NOTE = 'The rest is in the written reply.';

/**
 * What of a Markdown answer is read aloud: its words, without the marks (`**`, `#`, list bullets), link labels
 * instead of addresses, a bare address as its host name, emoji dropped; code blocks and tables are left to the
 * written reply, which is always sent too. Longer than `maxChars`: cut at the last sentence end before the limit,
 * with a note that the rest is in the text.
 */
export function speakableText(markdown: string, maxChars: number): { text: string; truncated: boolean } {
  const blocks = blockTexts(new Lexer().lex(markdown)).map(clean).filter((block) => block !== '');
  const text = blocks.join('\n');
  if (text.length <= maxChars) return { text, truncated: false };
  const room = Math.max(0, maxChars - REST_NOTE.length - 2);
  const head = text.slice(0, room);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '), head.lastIndexOf('\n'));
  const cut = sentenceEnd > room / 2 ? head.slice(0, sentenceEnd + 1) : head.slice(0, Math.max(head.lastIndexOf(' '), room / 2));
  return { text: `${cut.trim()} ${REST_NOTE}`, truncated: true };
}

function blockTexts(tokens: readonly Token[]): string[] {
  const out: string[] = [];
  const note = (line: string) => {
    if (out.at(-1) !== line) out.push(line);
  };
  for (const token of tokens) {
    switch (token.type) {
      case 'heading':
      case 'paragraph':
        out.push(endSentence(inlineText((token as Tokens.Heading | Tokens.Paragraph).tokens)));
        break;
      case 'text': {
        const text = token as Tokens.Text;
        out.push(text.tokens ? inlineText(text.tokens) : decodeHTMLStrict(text.text));
        break;
      }
      case 'list':
        for (const item of (token as Tokens.List).items) out.push(endSentence(blockTexts(item.tokens).join(' ')));
        break;
      case 'blockquote':
        out.push(...blockTexts((token as Tokens.Blockquote).tokens));
        break;
      case 'code':
        note(CODE_NOTE);
        break;
      case 'table':
        note(TABLE_NOTE);
        break;
      default:
        // space, hr, html, def: nothing to say.
        break;
    }
  }
  return out;
}

function inlineText(tokens: readonly Token[] | undefined): string {
  let out = '';
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const text = token as Tokens.Text;
        out += text.tokens ? inlineText(text.tokens) : decodeHTMLStrict(text.text);
        break;
      }
      case 'link': {
        const link = token as Tokens.Link;
        out += link.text === link.href || /^https?:\/\//i.test(link.text) ? hostOf(link.href) : inlineText(link.tokens);
        break;
      }
      case 'strong':
      case 'em':
      case 'del':
        out += inlineText((token as Tokens.Strong).tokens);
        break;
      case 'codespan':
        out += decodeHTMLStrict((token as Tokens.Codespan).text);
        break;
      case 'image':
        out += (token as Tokens.Image).text;
        break;
      case 'br':
        out += ' ';
        break;
      default:
        break;
    }
  }
  return out;
}

/** A list item or heading read as its own sentence, so the voice pauses after it. */
function endSentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?:;…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function clean(text: string): string {
  return text
    .replace(/https?:\/\/[^\s)]+/gi, (url) => hostOf(url))
    .replace(/[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}\u{20E3}]/gu, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/ ([.,!?;:])/g, '$1')
    .trim();
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return 'a link';
  }
}
