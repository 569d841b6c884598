/**
 * @module archive/crc32
 * CRC-32 (IEEE 802.3, the zip polynomial) over byte chunks, slice-by-4 tables. Pure: no I/O.
 * A dozen lines of table code beat a dependency that would have to run in workerd too.
 */

const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let i = 1; i < 4; i += 1) {
    const prev = tables[i - 1]!;
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) t[n] = (prev[n]! >>> 8) ^ t0[prev[n]! & 0xff]!;
    tables.push(t);
  }
  return tables;
})();

/**
 * Continues a CRC-32 over `chunk`; start with 0 and feed chunks in order.
 * @example updateCrc32(0, new TextEncoder().encode("123456789")) === 0xcbf43926
 */
export function updateCrc32(crc: number, chunk: Uint8Array): number {
  const [t0, t1, t2, t3] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let c = ~crc >>> 0;
  let i = 0;
  const end4 = chunk.length - (chunk.length % 4);
  for (; i < end4; i += 4) {
    c ^= chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16) | (chunk[i + 3]! << 24);
    c = t3[c & 0xff]! ^ t2[(c >>> 8) & 0xff]! ^ t1[(c >>> 16) & 0xff]! ^ t0[c >>> 24]!;
  }
  for (; i < chunk.length; i += 1) c = t0[(c ^ chunk[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
