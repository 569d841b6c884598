/**
 * @module runner/http-body
 * Reading an HTTP response body from another host with a byte bound: refused at once when its
 * declared length is over, and stopped (the stream cancelled) the moment it passes the bound,
 * so nothing past it is ever held. Used by the registry proxy and the live advisory source.
 */

/** The body's bytes, or null when it is longer than `maxBytes` (declared or streamed). */
export async function readBoundedBody(res: Response, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(res.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
