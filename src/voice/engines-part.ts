import type { Logger } from '../log.js';
import type { DoctorLine } from '../part.js';
import type { AnyTool, NativeTool } from '../tools/types.js';
import type { VoiceChats } from './chats.js';
import { voiceDoctor } from './doctor.js';
import { resolveEngines, type SttEngine, type TtsEngine } from './engines.js';
import { Ffmpeg } from './ffmpeg.js';
import { createVoiceService, SpeechRequests } from './service.js';
import { createSttEngine } from './stt.js';
import { createTtsEngine } from './tts.js';
import type { VoicePartDeps, VoiceService } from './types.js';
import type { VoiceUsage } from './usage.js';

/**
 * The voice engines of a config with a voice section, loaded by `createVoicePart` only then: ffmpeg, the recogniser
 * and the synthesiser each configured (a key missing or a command not found turns that one off, with a warning), the
 * service the channels call, the `voice_reply` tool when speech is on, and the doctor's checks.
 */
export function makeVoiceEngines(deps: VoicePartDeps, log: Logger, usage: VoiceUsage, chats: VoiceChats): {
  tools: readonly AnyTool[];
  stt: SttEngine | undefined;
  tts: TtsEngine | undefined;
  service: VoiceService | undefined;
  doctor: () => Promise<DoctorLine[]>;
} {
  const { config } = deps;
  const engines = resolveEngines(config);
  const ffmpeg = new Ffmpeg(config.voice.ffmpeg);
  const stt = engines.stt.settings ? createSttEngine(engines.stt.settings, ffmpeg) : undefined;
  const tts = engines.tts.settings ? createTtsEngine(engines.tts.settings) : undefined;
  if (!stt && !tts) {
    log.info(`voice: off (${[engines.stt.off, engines.tts.off].join('; ')}); see docs/voice.md`);
  } else {
    if (engines.stt.off !== undefined && config.voice.stt) log.warn(`voice: ${engines.stt.off}`);
    if (engines.tts.off !== undefined && config.voice.tts) log.warn(`voice: ${engines.tts.off}`);
  }
  const requests = new SpeechRequests();
  const service = stt || tts ? createVoiceService({ voice: config.voice, log, ffmpeg, stt, tts, usage, chats, ...(deps.tempRoot !== undefined ? { tempRoot: deps.tempRoot } : {}) }, requests) : undefined;
  return {
    tools: tts ? [voiceReplyTool(requests)] : [],
    stt,
    tts,
    service,
    doctor: () => voiceDoctor({ voice: config.voice, engines, ffmpeg, stt, tts, ...(deps.tempRoot !== undefined ? { tempRoot: deps.tempRoot } : {}) }),
  };
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
