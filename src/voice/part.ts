import type { ChatCommand, Part } from '../part.js';
import { VoiceChats } from './chats.js';
import type { ChatVoiceMode, VoicePartDeps, VoiceService } from './types.js';
import { formatSeconds, VoiceUsage } from './usage.js';

export type { VoicePartDeps } from './types.js';

/**
 * Voice: speech to text for voice notes and audio files (the channels and the console call `service.transcribe`),
 * text to speech when a chat asks for it (`/voice on|off|auto`, or the `voice_reply` tool when the person says "say
 * it"), audio minutes counted per day. Engines are an OpenAI-compatible endpoint or a local command; ffmpeg does the
 * decoding and encoding. Without a voice section it is a part with only the `/voice` command (saying how to turn it
 * on) and no service, and the engines' code (`engines-part.ts`: ffmpeg, the recogniser, the synthesiser, the service)
 * is not loaded.
 */
export async function createVoicePart(deps: VoicePartDeps): Promise<{ part: Part; service: VoiceService | undefined }> {
  const { config, db } = deps;
  const log = deps.log.child({ component: 'voice' });
  const now = deps.now ?? (() => new Date());
  const usage = new VoiceUsage(db, { timeZone: config.timezone, capMinutes: config.voice.daily_minutes, now });
  const chats = new VoiceChats(db, config.voice.tts?.chat_default ?? 'off');
  const made = config.voice.stt || config.voice.tts
    ? (await import('./engines-part.js')).makeVoiceEngines(deps, log, usage, chats)
    : (log.info('voice: off (no voice.stt or voice.tts section); see docs/voice.md'), undefined);
  const part: Part = {
    name: 'voice',
    tools: made?.tools ?? [],
    commands: new Map([['voice', voiceCommand({ stt: made?.stt, tts: made?.tts, usage, chats })]]),
    async start() {
      // A reservation older than an hour belongs to a process that died mid-way: it must not hold the cap.
      const forgotten = usage.forgetStale(3600_000);
      if (forgotten > 0) log.debug({ forgotten }, 'voice: stale audio reservations removed');
    },
    doctor: made ? made.doctor : async () => [{ status: 'skip', label: 'voice', detail: 'off (no voice.stt or voice.tts section)' }],
  };
  return { part, service: made?.service };
}

function voiceCommand(deps: { stt: unknown; tts: unknown; usage: VoiceUsage; chats: VoiceChats }): ChatCommand {
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
