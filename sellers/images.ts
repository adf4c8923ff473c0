/**
 * Real, small logo images for the fixture sellers, built in code so no binary sits in git: a PNG
 * (signature, IHDR, IDAT, IEND, with correct CRCs, so any decoder and the M4 sniffer accept it)
 * and an SVG.
 */
import { deflateSync } from "node:zlib";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A square RGB PNG: a filled disc of `fg` on `bg`, so it is visibly a logo, not a flat tile. */
export function makeLogoPng(size: number, fg: [number, number, number], bg: [number, number, number]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const rows: number[] = [];
  const r = size / 2;
  for (let y = 0; y < size; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < size; x++) {
      const inside = (x - r + 0.5) ** 2 + (y - r + 0.5) ** 2 <= (r * 0.8) ** 2;
      rows.push(...(inside ? fg : bg));
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", new Uint8Array(0)),
  ]);
}

/** An SVG logo with a letter on a rounded square; `letter` and `colour` are ours, never user text. */
export function makeLogoSvg(letter: string, colour: string): Buffer {
  const safeLetter = /^[A-Z]$/.test(letter) ? letter : "?";
  const safeColour = /^#[0-9a-f]{6}$/i.test(colour) ? colour : "#444444";
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="logo">` +
      `<rect width="64" height="64" rx="12" fill="${safeColour}"/>` +
      `<text x="32" y="43" font-family="sans-serif" font-size="32" text-anchor="middle" fill="#ffffff">${safeLetter}</text></svg>`,
    "utf8",
  );
}
