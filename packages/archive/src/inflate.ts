/**
 * @module archive/inflate
 * Streams compressed bytes through the platform's `DecompressionStream` (Node 22 and workerd)
 * with backpressure: input is fed in small chunks, each awaited, while output is read and
 * handed to a callback one chunk at a time. Invariants: output is never accumulated; the moment
 * the callback refuses, both sides are cancelled; nothing here throws.
 */
import type { ArchiveRefusal } from "./refusal.ts";

/** Compressed input is fed in pieces this size, so the consumed count lags by little. */
const INPUT_CHUNK_BYTES = 8 * 1024;

/** How a streamed decompression ended. */
export type InflateOutcome =
  | { readonly kind: "done" }
  | { readonly kind: "refused"; readonly refusal: ArchiveRefusal }
  | { readonly kind: "failed"; readonly error: unknown; readonly truncated: boolean };

/** Whether a decompressor error means the compressed stream ended early. */
function isTruncation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  const message = e instanceof Error ? e.message : String(e);
  return code === "Z_BUF_ERROR" || /unexpected end|incomplete|truncat/i.test(message);
}

/**
 * Decompresses `input`, calling `onInput` with each piece fed (for the ratio) and `onOutput`
 * with each produced chunk; a refusal from `onOutput` stops everything at once.
 */
export async function inflateStream(
  input: Uint8Array,
  format: "gzip" | "deflate-raw",
  onInput: (bytes: number) => void,
  onOutput: (chunk: Uint8Array) => Promise<ArchiveRefusal | null>,
): Promise<InflateOutcome> {
  let stream: DecompressionStream;
  try {
    stream = new DecompressionStream(format);
  } catch (e) {
    return { kind: "failed", error: e, truncated: false };
  }
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  let stopped = false;
  // Each write is awaited, so at most a few pieces sit ahead of the output being read.
  const feeding = (async () => {
    for (let at = 0; at < input.length && !stopped; at += INPUT_CHUNK_BYTES) {
      const piece = input.subarray(at, Math.min(at + INPUT_CHUNK_BYTES, input.length));
      onInput(piece.length);
      await writer.write(piece as Uint8Array<ArrayBuffer>);
    }
    if (!stopped) await writer.close();
  })().catch(() => undefined); // a feeding error also errors the readable side, seen below
  const stop = async () => {
    stopped = true;
    await reader.cancel().catch(() => undefined);
    await writer.abort().catch(() => undefined);
    await feeding;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const refusal = await onOutput(value);
      if (refusal) {
        await stop();
        return { kind: "refused", refusal };
      }
    }
  } catch (e) {
    await stop();
    return { kind: "failed", error: e, truncated: isTruncation(e) };
  }
  await feeding;
  return { kind: "done" };
}
