import { describe, expect, it } from 'vitest';
import { createProgressView, formatProgress } from '../../src/channels/progress.js';
import type { TurnEvent } from '../../src/turns/types.js';
import { captureLogger } from '../helpers/app.js';

const progress = (value: number, total?: number, message?: string): TurnEvent => ({
  type: 'progress', tool: 'mcp:files:index', callId: 'c1', progress: value, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}),
});

/** A chat that records the status message: its first text, then every edit. */
function recordingChat(options: { failSend?: boolean } = {}) {
  const shown: string[] = [];
  let sends = 0;
  return {
    shown,
    sends: () => sends,
    chat: {
      async sendEditable(text: string) {
        sends += 1;
        if (options.failSend) throw new Error('chat gone');
        shown.push(text);
        return async (next: string) => {
          shown.push(next);
        };
      },
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('progress in a chat', () => {
  it('sends the first report at once and folds a burst into one later edit', async () => {
    let now = 1000;
    const record = recordingChat();
    const view = createProgressView(record.chat, { intervalMs: 60_000, log: captureLogger([], []), now: () => now });
    for (let step = 1; step <= 100; step += 1) view.onEvent(progress(step, 100));
    await settle();
    expect(record.sends()).toBe(1);
    expect(record.shown).toEqual(['⏳ mcp:files:index — 1/100 (1%)']);
    now += 60_000;
    view.onEvent(progress(100, 100, 'done scanning'));
    await settle();
    expect(record.shown).toEqual(['⏳ mcp:files:index — 1/100 (1%)', '⏳ mcp:files:index — 100/100 (100%) done scanning']);
    view.close();
  });

  it('shows the latest report when the interval is up, and nothing after close', async () => {
    const record = recordingChat();
    const view = createProgressView(record.chat, { intervalMs: 50, log: captureLogger([], []) });
    view.onEvent(progress(1, 3));
    view.onEvent(progress(2, 3));
    view.onEvent(progress(3, 3));
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(record.shown).toEqual(['⏳ mcp:files:index — 1/3 (33%)', '⏳ mcp:files:index — 3/3 (100%)']);
    view.close();
    view.onEvent(progress(4, 3));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(record.shown).toHaveLength(2);
  });

  it('stops quietly when the chat cannot take the message', async () => {
    const record = recordingChat({ failSend: true });
    const view = createProgressView(record.chat, { intervalMs: 0, log: captureLogger([], []) });
    view.onEvent(progress(1));
    await settle();
    view.onEvent(progress(2));
    await settle();
    expect(record.sends()).toBe(1);
  });

  it('ignores other events', async () => {
    const record = recordingChat();
    const view = createProgressView(record.chat, { intervalMs: 0, log: captureLogger([], []) });
    view.onEvent({ type: 'tool_start', tool: 'x', arguments: '{}', callId: 'c1' });
    view.onEvent({ type: 'text_delta', text: 'hello' });
    await settle();
    expect(record.sends()).toBe(0);
  });

  it('formats a report on one line, the tool\'s message without controls and cut', () => {
    expect(formatProgress({ type: 'progress', tool: 't', callId: 'c', progress: 2.5 })).toBe('⏳ t — 2.5');
    expect(formatProgress({ type: 'progress', tool: 't', callId: 'c', progress: 1, total: 3, message: 'line one\nline\u0007two' })).toBe('⏳ t — 1/3 (33%) line one line two');
    const long = formatProgress({ type: 'progress', tool: 't', callId: 'c', progress: 1, message: '🎉'.repeat(400) });
    expect(Array.from(long)).toHaveLength(300);
    expect(long.endsWith('…')).toBe(true);
  });
});
