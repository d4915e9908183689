// Contract: a node:http fake of OpenAI's audio API — POST /v1/audio/transcriptions (a multipart upload; json, text
// and verbose_json responses) and POST /v1/audio/speech (JSON in, audio bytes out) — with OpenAI's limits and error
// shape, driven in tests through the real `openai` client. It records every request.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TranscriptionRequest {
  model: string;
  language: string | undefined;
  responseFormat: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  authorization: string | undefined;
}

export interface SpeechRequest {
  model: string;
  input: string;
  voice: string;
  responseFormat: string;
  authorization: string | undefined;
}

export interface FakeError { status: number; message: string; type?: string; code?: string | null; retryAfterS?: number }

export interface FakeSpeechServer {
  baseUrl: string;
  apiKey: string;
  transcriptions: TranscriptionRequest[];
  speeches: SpeechRequest[];
  /** What a transcription returns (default: "hello from the fake", or `scripted` texts in order). */
  transcribeWith(handler: (request: TranscriptionRequest, index: number) => string): void;
  /** Texts returned by the next transcriptions, one each, before the handler. */
  script(...texts: string[]): void;
  failNext(path: 'transcriptions' | 'speech', error: FakeError, times?: number): void;
  close(): Promise<void>;
}

/** OpenAI's upload limit for /audio/transcriptions. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const MAX_INPUT = 4096;
const TRANSCRIBE_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'];
const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];
/** What OpenAI accepts, by file extension. */
const AUDIO_EXTENSIONS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

export async function startSpeechServer(options: { apiKey?: string } = {}): Promise<FakeSpeechServer> {
  const apiKey = options.apiKey ?? 'sk-speech-fake-0123456789';
  const transcriptions: TranscriptionRequest[] = [];
  const speeches: SpeechRequest[] = [];
  const scripted: string[] = [];
  const failures = new Map<string, FakeError[]>();
  let handler: (request: TranscriptionRequest, index: number) => string = () => 'hello from the fake';

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, error: FakeError): void => {
    sendJson(res, error.status, { error: { message: error.message, type: error.type ?? 'invalid_request_error', param: null, code: error.code ?? null } }, error.retryAfterS !== undefined ? { 'retry-after': String(error.retryAfterS) } : {});
  };

  async function transcription(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) return sendError(res, { status: 400, message: 'Invalid Content-Type header, expected multipart/form-data' });
    if (body.length > MAX_UPLOAD_BYTES) return sendError(res, { status: 413, message: `Maximum content size limit (${MAX_UPLOAD_BYTES}) exceeded (${body.length} bytes read)` });
    // The real client sends standard multipart (quoted names), which undici's own parser reads.
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body }).formData();
    const file = form.get('file');
    const model = form.get('model');
    if (!(file instanceof File)) return sendError(res, { status: 400, message: "you must provide a file" });
    if (typeof model !== 'string' || model === '') return sendError(res, { status: 400, message: "you must provide a model parameter" });
    if (!['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe'].includes(model)) return sendError(res, { status: 404, message: `The model \`${model}\` does not exist or you do not have access to it.`, code: 'model_not_found' });
    const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? '';
    if (!AUDIO_EXTENSIONS.includes(extension)) return sendError(res, { status: 400, message: `Invalid file format. Supported formats: ${JSON.stringify(AUDIO_EXTENSIONS)}` });
    const responseFormat = typeof form.get('response_format') === 'string' ? String(form.get('response_format')) : 'json';
    if (!TRANSCRIBE_FORMATS.includes(responseFormat)) return sendError(res, { status: 400, message: `'${responseFormat}' is not one of ${JSON.stringify(TRANSCRIBE_FORMATS)} - 'response_format'` });
    const language = form.get('language');
    const request: TranscriptionRequest = {
      model, language: typeof language === 'string' ? language : undefined, responseFormat, fileName: file.name, contentType: file.type,
      bytes: Buffer.from(await file.arrayBuffer()), authorization: req.headers.authorization,
    };
    transcriptions.push(request);
    const text = scripted.shift() ?? handler(request, transcriptions.length - 1);
    if (responseFormat === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
      return;
    }
    if (responseFormat === 'verbose_json') return sendJson(res, 200, { task: 'transcribe', language: request.language ?? 'english', duration: 0, text, segments: [] });
    sendJson(res, 200, { text, usage: { type: 'duration', seconds: 1 } });
  }

  function speech(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return sendError(res, { status: 400, message: 'We could not parse the JSON body of your request.' });
    }
    const input = params['input'];
    const voice = params['voice'];
    const model = params['model'];
    const responseFormat = typeof params['response_format'] === 'string' ? params['response_format'] : 'mp3';
    if (typeof model !== 'string' || !['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'].includes(model)) return sendError(res, { status: 404, message: `The model \`${String(model)}\` does not exist or you do not have access to it.`, code: 'model_not_found' });
    if (typeof input !== 'string' || input === '') return sendError(res, { status: 400, message: "[{'type': 'string_too_short', 'loc': ('body', 'input'), 'msg': 'String should have at least 1 character'}]" });
    if (input.length > MAX_INPUT) return sendError(res, { status: 400, message: `[{'type': 'string_too_long', 'loc': ('body', 'input'), 'msg': 'String should have at most ${MAX_INPUT} characters'}]` });
    if (typeof voice !== 'string' || voice === '') return sendError(res, { status: 400, message: "[{'type': 'missing', 'loc': ('body', 'voice'), 'msg': 'Field required'}]" });
    if (!SPEECH_FORMATS.includes(responseFormat)) return sendError(res, { status: 400, message: `'${responseFormat}' is not one of ${JSON.stringify(SPEECH_FORMATS)} - 'response_format'` });
    speeches.push({ model, input, voice, responseFormat, authorization: req.headers.authorization });
    // A tone as long as the text would take to say (OpenAI speaks 24 kHz mono).
    const pcm = tone(Math.max(0.5, input.length / 15), 24_000);
    const audio = responseFormat === 'pcm' ? pcm : responseFormat === 'wav' ? wav(pcm, 24_000) : convert(wav(pcm, 24_000), responseFormat);
    const types: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/ogg', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };
    res.writeHead(200, { 'content-type': types[responseFormat] ?? 'application/octet-stream', 'content-length': audio.length }).end(audio);
  }

  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.headers.authorization !== `Bearer ${apiKey}`) return sendError(res, { status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' });
      if (req.method === 'GET' && url.pathname === '/v1/models') return sendJson(res, 200, { object: 'list', data: ['whisper-1', 'tts-1'].map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      const route = req.method === 'POST' && url.pathname === '/v1/audio/transcriptions' ? 'transcriptions' : req.method === 'POST' && url.pathname === '/v1/audio/speech' ? 'speech' : undefined;
      if (!route) return sendError(res, { status: 404, message: `Invalid URL (${req.method ?? ''} ${url.pathname})` });
      const failure = failures.get(route)?.shift();
      if (failure) return sendError(res, failure);
      if (route === 'transcriptions') await transcription(req, body, res);
      else speech(req, body, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendError(res, { status: 500, message: `The server had an error: ${String(error)}`, type: 'server_error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`, apiKey, transcriptions, speeches,
    transcribeWith(next) {
      handler = next;
    },
    script(...texts) {
      scripted.push(...texts);
    },
    failNext(route, error, times = 1) {
      failures.set(route, [...(failures.get(route) ?? []), ...Array.from({ length: times }, () => error)]);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function tone(seconds: number, rate: number): Buffer {
  const samples = Math.round(seconds * rate);
  const pcm = Buffer.alloc(samples * 2);
  for (let index = 0; index < samples; index += 1) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * index) / rate)), index * 2);
  return pcm;
}

function wav(pcm: Buffer, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** The provider's other formats, made with ffmpeg (a test dependency, see test/setup). */
function convert(input: Buffer, format: string): Buffer {
  const muxer: Record<string, string[]> = { mp3: ['-f', 'mp3'], opus: ['-c:a', 'libopus', '-f', 'ogg'], aac: ['-f', 'adts'], flac: ['-f', 'flac'] };
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'wav', '-i', 'pipe:0', ...(muxer[format] ?? ['-f', 'mp3']), 'pipe:1'], { input, maxBuffer: 64 * 1024 * 1024 });
}
