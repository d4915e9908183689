/**
 * Audio as this part holds it between ffmpeg and the engines: signed 16-bit little-endian mono PCM at 16 kHz, the
 * rate speech recognisers are trained on. At 32 000 bytes a second, 30 minutes is 58 MB.
 */
export const SAMPLE_RATE = 16_000;
export const BYTES_PER_SECOND = SAMPLE_RATE * 2;

export function secondsOf(pcm: Buffer): number {
  return Math.floor(pcm.length / 2) / SAMPLE_RATE;
}

/** A WAV file (RIFF, PCM 16-bit mono) around raw samples: what local recognisers and every endpoint read. */
export function wavFile(pcm: Buffer): Buffer {
  const data = pcm.subarray(0, pcm.length - (pcm.length % 2));
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(BYTES_PER_SECOND, 28);
  header.writeUInt16LE(2, 32); // bytes per frame
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** `seconds` of silence, as a WAV file (the doctor's check of an engine). */
export function silentWav(seconds: number): Buffer {
  return wavFile(Buffer.alloc(Math.round(seconds * SAMPLE_RATE) * 2));
}

const FRAME = SAMPLE_RATE / 50; // 20 ms
const QUIET_WINDOW = 10; // frames (200 ms) averaged when looking for a pause

/**
 * Where to cut audio longer than `maxSeconds` into pieces no longer than that: in the middle of the longest quiet pause
 * in the second half (at most the last minute) before each limit, so a cut falls between sentences rather than
 * through a word, and both
 * pieces keep some silence at the cut (recognisers need a little to find where speech starts). Returns the byte
 * offsets of the pieces' starts and ends: `[0, c1, c2, …, length]`.
 */
export function pieceBounds(pcm: Buffer, maxSeconds: number): number[] {
  const totalSamples = Math.floor(pcm.length / 2);
  const maxSamples = Math.max(FRAME, Math.floor(maxSeconds * SAMPLE_RATE));
  if (totalSamples <= maxSamples) return [0, totalSamples * 2];
  const energy = frameEnergy(pcm, totalSamples);
  const bounds = [0];
  let start = 0;
  while (totalSamples - start > maxSamples) {
    const limitFrame = Math.floor((start + maxSamples) / FRAME);
    const searchFrames = Math.max(1, Math.min(60 * 50, Math.floor(maxSamples / FRAME / 2)));
    const from = Math.max(Math.floor(start / FRAME) + 1, limitFrame - searchFrames);
    const cutFrame = quietestPause(energy, from, limitFrame) ?? limitFrame;
    const cut = Math.min(start + maxSamples, Math.max(start + FRAME, cutFrame * FRAME));
    bounds.push(cut * 2);
    start = cut;
  }
  bounds.push(totalSamples * 2);
  return bounds;
}

/**
 * The middle of the longest run of 200 ms windows (starting in [from, to - window]) whose loudness is within a
 * little of the quietest one — the centre of the longest pause, not a gap between two words; among equals, the
 * latest (pieces stay as long as allowed).
 */
function quietestPause(energy: Float64Array, from: number, to: number): number | undefined {
  const sums: number[] = [];
  for (let frame = from; frame + QUIET_WINDOW <= to; frame += 1) {
    let sum = 0;
    for (let index = frame; index < frame + QUIET_WINDOW; index += 1) sum += energy[index] ?? 0;
    sums.push(sum);
  }
  if (sums.length === 0) return undefined;
  const quietest = Math.min(...sums);
  // A little slack, so hiss or a breath does not split one pause into many.
  const threshold = quietest * 1.1 + QUIET_WINDOW * 20;
  let best: { start: number; end: number } | undefined;
  for (let index = 0; index < sums.length; index += 1) {
    if ((sums[index] ?? Number.POSITIVE_INFINITY) > threshold) continue;
    let end = index;
    while (end + 1 < sums.length && (sums[end + 1] ?? Number.POSITIVE_INFINITY) <= threshold) end += 1;
    if (!best || end - index >= best.end - best.start) best = { start: index, end };
    index = end;
  }
  if (!best) return undefined;
  // The run's windows cover [start, end + window): its middle.
  return from + Math.floor((best.start + best.end + QUIET_WINDOW) / 2);
}

/** Mean absolute amplitude of each 20 ms frame. */
function frameEnergy(pcm: Buffer, totalSamples: number): Float64Array {
  const frames = Math.ceil(totalSamples / FRAME);
  const energy = new Float64Array(frames);
  for (let frame = 0; frame < frames; frame += 1) {
    const first = frame * FRAME;
    const last = Math.min(totalSamples, first + FRAME);
    let sum = 0;
    for (let sample = first; sample < last; sample += 1) sum += Math.abs(pcm.readInt16LE(sample * 2));
    energy[frame] = sum / Math.max(1, last - first);
  }
  return energy;
}
