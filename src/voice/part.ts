import type { Config } from '../config/schema.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../log.js';
import type { ChatCommand, Part } from '../part.js';
import type { NativeTool } from '../tools/types.js';
import { VoiceChats } from './chats.js';
import { voiceDoctor } from './doctor.js';
import { resolveEngines } from './engines.js';
import { Ffmpeg } from './ffmpeg.js';
import { createVoiceService, formatSeconds, SpeechRequests } from './service.js';
import { createSttEngine } from './stt.js';
import { createTtsEngine } from './tts.js';
import type { ChatVoiceMode, VoiceService } from './types.js';
import { VoiceUsage } from './usage.js';

export interface VoicePartDeps {
  config: Pick<Config, 'voice' | 'llm' | 'timezone'>;
  db: Database;
  log: Logger;
  now?: () => Date;
  /** Where private job folders go (tests); default the system's temporary folder. */
  tempRoot?: string;
}

/**
 * Voice: speech to text for voice notes and audio files (the channels and the console call `service.transcribe`),
 * text to speech when a chat asks for it (`/voice on|off|auto`, or the `voice_reply` tool when the person says "say
 * it"), audio minutes counted per day. Engines are an OpenAI-compatible endpoint or a local command; ffmpeg does the
 * decoding and encoding. Without a voice section it is a part with only the `/voice` command (saying how to turn it
 * on) and no service.
 */
export function createVoicePart(deps: VoicePartDeps): { part: Part; service: VoiceService | undefined } {
  const { config, db } = deps;
  const log = deps.log.child({ component: 'voice' });
  const now = deps.now ?? (() => new Date());
  const engines = resolveEngines(config);
  const ffmpeg = new Ffmpeg(config.voice.ffmpeg);
  const usage = new VoiceUsage(db, { timeZone: config.timezone, capMinutes: config.voice.daily_minutes, now });
  const chats = new VoiceChats(db, config.voice.tts?.chat_default ?? 'off');
  const stt = engines.stt.settings ? createSttEngine(engines.stt.settings, ffmpeg) : undefined;
  const tts = engines.tts.settings ? createTtsEngine(engines.tts.settings) : undefined;
  if (!stt && !tts) {
    log.info(`voice: off (${config.voice.stt || config.voice.tts ? [engines.stt.off, engines.tts.off].join('; ') : 'no voice.stt or voice.tts section'}); see docs/voice.md`);
  } else {
    if (engines.stt.off !== undefined && config.voice.stt) log.warn(`voice: ${engines.stt.off}`);
    if (engines.tts.off !== undefined && config.voice.tts) log.warn(`voice: ${engines.tts.off}`);
  }
  const requests = new SpeechRequests();
  const service = stt || tts ? createVoiceService({ voice: config.voice, log, ffmpeg, stt, tts, usage, chats, ...(deps.tempRoot !== undefined ? { tempRoot: deps.tempRoot } : {}) }, requests) : undefined;

  const part: Part = {
    name: 'voice',
    tools: tts ? [voiceReplyTool(requests)] : [],
    commands: new Map([['voice', voiceCommand({ stt, tts, usage, chats, timeZone: config.timezone })]]),
    async start() {
      // A reservation older than an hour belongs to a process that died mid-way: it must not hold the cap.
      const forgotten = usage.forgetStale(3600_000);
      if (forgotten > 0) log.debug({ forgotten }, 'voice: stale audio reservations removed');
    },
    doctor: () => voiceDoctor({ voice: config.voice, engines, ffmpeg, stt, tts, ...(deps.tempRoot !== undefined ? { tempRoot: deps.tempRoot } : {}) }),
  };
  return { part, service };
}

/** "Say it": the model marks this turn's answer to be spoken too (the channel does it after sending the text). */
function voiceReplyTool(requests: SpeechRequests): NativeTool<{ text?: string }> {
  return {
    name: 'voice_reply',
    aliases: ['speak'],
    // Not in the built-in catalogue (it comes with `voice`): it names its own permission for agents' grant lists.
    permissions: ['voice.speak'],
    description:
      'Also send your answer to this message as a voice message the person can play (text to speech); the written ' +
      'answer is sent as usual. Call it when the person asks to hear it: "say it", "read it to me", "tell me out loud", ' +
      '"answer with a voice note". `text`: say this instead of your whole answer (e.g. only the poem you wrote).',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 20_000, description: 'What to say, if not the whole answer.' } },
      additionalProperties: false,
    },
    risk: 'low',
    // The text goes to the configured speech engine and back to the same person: nothing leaves for anyone else.
    effects: [],
    async execute(params, ctx) {
      if (ctx.unattended) return { success: false, output: 'Nobody is listening in a scheduled run; the answer is delivered as text.' };
      if (ctx.origin.channel === 'cli') return { success: false, output: 'The terminal cannot play a voice message; answer in text.' };
      requests.add(ctx.turnId, params.text);
      return { success: true, output: 'Your answer will also be sent as a voice message after the text. Write the answer as usual.' };
    },
  };
}

function voiceCommand(deps: { stt: unknown; tts: unknown; usage: VoiceUsage; chats: VoiceChats; timeZone: string }): ChatCommand {
  const { usage, chats } = deps;
  const describe: Record<ChatVoiceMode, string> = {
    on: 'on — I speak every answer here (the text still comes too)',
    auto: 'auto — I speak my answers to your voice notes',
    off: 'off — I answer in text (say "say it" when you want to hear an answer)',
  };
  return {
    description: 'spoken answers here: /voice on, off or auto (answer voice notes with voice)',
    async run({ channel, chatId, args }) {
      const wanted = args.trim().toLowerCase();
      if (wanted === '') {
        const today = usage.today();
        const cap = today.capMinutes > 0 ? ` of ${today.capMinutes} min (voice.daily_minutes)` : ' (no daily cap)';
        return [
          `Voice here: ${deps.tts ? describe[chats.mode(channel, chatId)] : 'off — text to speech is not set up (voice.tts)'}.`,
          `Voice notes: ${deps.stt ? 'I transcribe them' : 'not transcribed — speech to text is not set up (voice.stt)'}.`,
          `Today: ${formatSeconds(today.heardSeconds)} heard, ${formatSeconds(today.spokenSeconds)} spoken${cap}.`,
        ].join('\n');
      }
      if (wanted !== 'on' && wanted !== 'off' && wanted !== 'auto') return 'Use /voice on (speak every answer), /voice auto (answer voice notes with voice), /voice off, or /voice to see the setting.';
      if (!deps.tts && wanted !== 'off') return 'I cannot speak yet: text to speech is not set up (voice.tts in the config; see docs/voice.md). Voice notes you send are still transcribed if voice.stt is set.';
      chats.set(channel, chatId, wanted);
      return `Voice ${describe[wanted]}.`;
    },
  };
}
