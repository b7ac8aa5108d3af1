/**
 * Writes build/icon.png (1024×1024, what electron-builder turns into each platform's icon):
 * a container sitting at a berth. Run `npx tsx build/make-icon.ts` after changing it; the
 * PNG is checked in. build/icon.svg is the same drawing for places that take vector art.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const SIZE = 1024;
const SAMPLES = 4; // per axis, for smooth edges
type RGBA = [number, number, number, number];

const BACKGROUND: RGBA = [16, 42, 58, 255];
const WATER: RGBA = [28, 86, 112, 255];
const DOCK: RGBA = [236, 240, 241, 255];
const BOX: RGBA = [242, 153, 52, 255];
const RIB: RGBA = [206, 114, 24, 255];
const CLEAR: RGBA = [0, 0, 0, 0];

function insideRoundedRect(x: number, y: number, left: number, top: number, right: number, bottom: number, r: number): boolean {
  if (x < left || x > right || y < top || y > bottom) return false;
  const cx = Math.min(Math.max(x, left + r), right - r);
  const cy = Math.min(Math.max(y, top + r), bottom - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** The colour of one point of the drawing (coordinates 0..1024). */
function colourAt(x: number, y: number): RGBA {
  if (!insideRoundedRect(x, y, 32, 32, 992, 992, 200)) return CLEAR;
  // The container: a box with vertical ribs.
  if (x >= 272 && x <= 752 && y >= 352 && y <= 632) {
    const inner = x >= 292 && x <= 732 && y >= 392 && y <= 592;
    if (inner && Math.floor((x - 292) / 40) % 2 === 1) return RIB;
    return BOX;
  }
  // The dock it stands on.
  if (insideRoundedRect(x, y, 192, 648, 832, 712, 24)) return DOCK;
  // The water below.
  const wave = 780 + 18 * Math.sin((x / 1024) * Math.PI * 6);
  if (y >= wave) return WATER;
  return BACKGROUND;
}

function pixel(px: number, py: number): RGBA {
  const sum = [0, 0, 0, 0];
  for (let i = 0; i < SAMPLES; i++) {
    for (let j = 0; j < SAMPLES; j++) {
      const c = colourAt(px + (i + 0.5) / SAMPLES, py + (j + 0.5) / SAMPLES);
      // Premultiplied, so transparent samples do not darken the edge.
      sum[0] = (sum[0] as number) + c[0] * c[3];
      sum[1] = (sum[1] as number) + c[1] * c[3];
      sum[2] = (sum[2] as number) + c[2] * c[3];
      sum[3] = (sum[3] as number) + c[3];
    }
  }
  const alpha = sum[3] as number;
  if (alpha === 0) return CLEAR;
  return [
    Math.round((sum[0] as number) / alpha),
    Math.round((sum[1] as number) / alpha),
    Math.round((sum[2] as number) / alpha),
    Math.round(alpha / (SAMPLES * SAMPLES)),
  ];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function renderPng(): Buffer {
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let y = 0; y < SIZE; y++) {
    const row = y * (SIZE * 4 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) raw.set(pixel(x, y), row + 1 + x * 4);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'icon.png');
fs.writeFileSync(out, renderPng());
process.stdout.write(`wrote ${out}\n`);
