import type { Database } from '../db/database.js';
import type { ChatVoiceMode } from './types.js';

const MODES: ReadonlySet<string> = new Set(['off', 'on', 'auto']);

/** Each chat's /voice mode (SQLite `voice_chats`); a chat never set has `voice.tts.chat_default`. */
export class VoiceChats {
  constructor(
    private readonly db: Database,
    private readonly fallback: ChatVoiceMode,
  ) {}

  mode(channel: string, chatId: string): ChatVoiceMode {
    const row = this.db.prepare('SELECT mode FROM voice_chats WHERE channel = ? AND chat_id = ?').get(channel, chatId) as { mode: string } | undefined;
    return row !== undefined && MODES.has(row.mode) ? (row.mode as ChatVoiceMode) : this.fallback;
  }

  set(channel: string, chatId: string, mode: ChatVoiceMode, now = Date.now()): void {
    this.db
      .prepare('INSERT INTO voice_chats (channel, chat_id, mode, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (channel, chat_id) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at')
      .run(channel, chatId, mode, now);
  }
}
