// Writes the console's app icons (assets/console/icon-192.png, icon-512.png) from the same drawing as icon.svg:
// the blue rounded square with the white F. A phone's home screen wants PNGs, and the icons must be made here, not
// fetched; they are committed, so this runs only when the drawing changes: `node scripts/make-icons.mjs`.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const BLUE = [0x3b, 0x5b, 0xdb];
const WHITE = [0xff, 0xff, 0xff];
/** The F of icon.svg, as rectangles on its 32-unit grid: [x0, y0, x1, y1]. */
const LETTER = [[9, 8, 14, 24], [9, 8, 23, 12], [9, 15, 21, 19]];

function inRoundedSquare(x, y, radius) {
  const cx = Math.min(Math.max(x, radius), 32 - radius);
  const cy = Math.min(Math.max(y, radius), 32 - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

/** A pixel's colour and coverage, sampled 4×4 inside the pixel so the edges are smooth. */
function pixel(px, py, size) {
  let inside = 0;
  let letter = 0;
  for (let sy = 0; sy < 4; sy += 1) {
    for (let sx = 0; sx < 4; sx += 1) {
      const x = ((px + (sx + 0.5) / 4) * 32) / size;
      const y = ((py + (sy + 0.5) / 4) * 32) / size;
      if (!inRoundedSquare(x, y, 8)) continue;
      inside += 1;
      if (LETTER.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1)) letter += 1;
    }
  }
  const share = inside === 0 ? 0 : letter / inside;
  const rgb = BLUE.map((blue, index) => Math.round(blue + (WHITE[index] - blue) * share));
  return [...rgb, Math.round((inside / 16) * 255)];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    const start = y * (size * 4 + 1);
    for (let x = 0; x < size; x += 1) rows.set(pixel(x, y, size), start + 1 + x * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const size of [192, 512]) writeFileSync(new URL(`../assets/console/icon-${size}.png`, import.meta.url), png(size));
