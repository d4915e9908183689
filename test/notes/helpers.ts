// Helpers for the notes part's tests: a real app (config, SQLite on disk, memory folder, installers) over the fake LLM.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Daemon as App } from '../../src/daemon.js';
import { dayOf } from '../../src/notes/dates.js';
import type { Resolver } from '../../src/net/fetch-guarded.js';
import type { ApprovalHandler } from '../../src/tools/call.js';
import type { ToolResult } from '../../src/tools/types.js';
import { startOpenAiServer, type FakeOpenAI } from '../fakes/openai-server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';

export const CHAT = { channel: 'telegram', chatId: '77', userId: '77' };

export interface NotesHarness {
  fake: FakeOpenAI;
  t: TestApp;
  app: App;
  today: string;
  file(name: string): string;
  read(name: string): string;
  write(name: string, content: string): void;
  call(name: string, args: Record<string, unknown>, options?: { approve?: ApprovalHandler; origin?: typeof CHAT }): Promise<ToolResult>;
  command(name: string, args?: string, origin?: typeof CHAT): Promise<string>;
  close(): Promise<void>;
}

export async function notesHarness(overrides: Record<string, unknown> = {}, options: { resolve?: Resolver; now?: () => Date } = {}): Promise<NotesHarness> {
  const fake = await startOpenAiServer();
  const t = await makeTestApp(fake, overrides, undefined, options);
  const app = t.app;
  const file = (name: string) => path.join(app.config.memory_dir, name);
  return {
    fake, t, app,
    today: dayOf(options.now?.().getTime() ?? Date.now(), app.config.timezone),
    file,
    read: (name) => readFileSync(file(name), 'utf8'),
    write(name, content) {
      mkdirSync(path.dirname(file(name)), { recursive: true });
      writeFileSync(file(name), content);
    },
    async call(name, args, options = {}) {
      const origin = options.origin ?? CHAT;
      const conversationId = app.conversations.resolve(origin.channel, origin.chatId);
      const outcome = await app.tools.execute({ name, arguments: args, conversationId, turnId: 't-test', origin, ...(options.approve ? { approve: options.approve } : {}) });
      return outcome.result;
    },
    async command(name, args = '', origin = CHAT) {
      const command = app.commands.get(name);
      if (!command) throw new Error(`no chat command /${name}`);
      const reply = await command.run({ ...origin, args, conversationId: app.conversations.resolve(origin.channel, origin.chatId) });
      // Only MCP prompts answer with a turn to start; the notes commands answer with text.
      if (typeof reply !== 'string') throw new Error(`/${name} answered with a turn, not text`);
      return reply;
    },
    async close() {
      await app.close(0);
      await fake.close();
    },
  };
}
