/**
 * Redis Cluster's hash slot of a key (CRC16-XMODEM of the key, or of its `{hash tag}` when it has a
 * non-empty one, modulo 16384): which keys a Cluster node accepts together in one script call (the
 * rate-limit sync, RedisScript refusing a call whose keys span slots). ioredis computes the same
 * internally but does not export it.
 */
const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
    t[i] = crc;
  }
  return t;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) {
    crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff];
  }
  return crc;
}

export const SLOTS = 16384;

export function keySlot(key: string): number {
  const bytes = Buffer.from(key, 'utf8');
  const open = bytes.indexOf(0x7b); // {
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1); // }
    if (close > open + 1) {
      return crc16(bytes.subarray(open + 1, close)) % SLOTS;
    }
  }
  return crc16(bytes) % SLOTS;
}
