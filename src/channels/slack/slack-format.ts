import { slackifyMarkdown } from 'slackify-markdown';
import { splitMessage } from '../split.js';

/**
 * Slack's recommended most characters of one message's text (its hard cap is 40,000, past which it truncates):
 * longer answers go out as several messages, each readable on a phone.
 */
export const SLACK_LIMIT = 4000;
/** A section block's text holds at most 3000 characters: the most a message with buttons can show above them. */
export const SLACK_SECTION_LIMIT = 3000;
/** The Markdown is cut below the limit: its conversion to mrkdwn can grow it (`&` becomes `&amp;`, links `<url|text>`). */
const MARKDOWN_PART = 3500;

/**
 * The model's Markdown as Slack's mrkdwn (slackify-markdown), in parts of at most SLACK_LIMIT characters that each
 * render on their own (a code block cut in two is closed and reopened). Contract: never throws.
 */
export function toMrkdwnParts(markdown: string, limit = SLACK_LIMIT): string[] {
  return splitMessage(markdown, Math.min(MARKDOWN_PART, limit)).flatMap((part) => {
    const converted = toMrkdwn(part);
    return converted.length <= limit ? [converted] : splitMessage(converted, limit);
  }).filter((part) => part.trim() !== '');
}

/**
 * One piece of Markdown as mrkdwn. A ping written by the model (`<!channel>`, `<!here>`, `<@U…>`, `<#C…>`, a user
 * group) is shown as text, never sent as a mention: the model may have been talked into paging a whole workspace.
 */
export function toMrkdwn(markdown: string): string {
  let converted: string;
  try {
    converted = slackifyMarkdown(markdown);
  } catch {
    converted = escapeText(markdown);
  }
  return defuseMentions(converted).replace(/\s+$/, '');
}

/** The characters Slack reads as markup in any text it parses (`&`, `<`, `>`), escaped as its docs say. */
export function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<!…>`, `<@…>` and `<#…>` sequences made inert; links (`<https://…|text>`) stay links. */
function defuseMentions(text: string): string {
  return text.replace(/<([!@#][^<>]*)>/g, '&lt;$1&gt;');
}
