/**
 * @module ingest/bundle
 * Reads the manifest (`challenge.json`) out of an uploaded challenge bundle (.tar.gz) at the
 * edge, streaming through DecompressionStream, and validates it with the runner's contract.
 * Invariants: decompression is capped (a gzip bomb stops at `maxUnpackedBytes`); only the
 * manifest is read here, never a hidden test's content.
 */
import { ChallengeManifestSchema, type ChallengeManifest, formatZodIssues } from "@bouts/contracts";
import type { ProblemFieldError } from "@bouts/contracts";

/** Why a bundle was refused. */
export type BundleError = { detail: string; errors?: ProblemFieldError[] };

const MANIFEST_NAMES = new Set(["challenge.json", "./challenge.json"]);
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Finds and validates the manifest of a .tar.gz bundle. */
export async function readBundleManifest(
  bytes: Uint8Array,
  maxUnpackedBytes: number,
): Promise<{ ok: true; value: ChallengeManifest } | { ok: false; error: BundleError }> {
  let text: string | null;
  try {
    text = await findTarEntry(bytes, MANIFEST_NAMES, maxUnpackedBytes);
  } catch (err) {
    return { ok: false, error: { detail: `The bundle is not a readable .tar.gz: ${String(err)}` } };
  }
  if (text === null) {
    return { ok: false, error: { detail: "The bundle has no challenge.json at its root." } };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: { detail: "challenge.json is not valid JSON." } };
  }
  const parsed = ChallengeManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = formatZodIssues(parsed.error);
    return {
      ok: false,
      error: {
        detail: `challenge.json breaks the manifest schema: ${errors
          .slice(0, 3)
          .map((e) => `${e.path}: ${e.message}`)
          .join("; ")}`,
        errors,
      },
    };
  }
  return { ok: true, value: parsed.data };
}

/** Streams a gzip'd tar and returns the text of the first entry named in `names`. */
async function findTarEntry(
  gz: Uint8Array,
  names: ReadonlySet<string>,
  maxUnpackedBytes: number,
): Promise<string | null> {
  const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  let buf = new Uint8Array(0);
  let total = 0;
  let done = false;
  const fill = async (need: number) => {
    while (buf.length < need && !done) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        break;
      }
      total += r.value.byteLength;
      if (total > maxUnpackedBytes) throw new Error("it unpacks past the size limit");
      const next = new Uint8Array(buf.length + r.value.byteLength);
      next.set(buf);
      next.set(r.value, buf.length);
      buf = next;
    }
    return buf.length >= need;
  };
  const decoder = new TextDecoder();
  let longName: string | null = null;
  try {
    for (;;) {
      if (!(await fill(512))) return null;
      const header = buf.subarray(0, 512);
      if (header.every((b) => b === 0)) return null;
      const field = (at: number, len: number) =>
        decoder.decode(header.subarray(at, at + len)).replace(/\0.*$/s, "");
      const size = parseInt(field(124, 12).trim() || "0", 8);
      if (!Number.isSafeInteger(size) || size < 0) throw new Error("corrupt tar header");
      const type = field(156, 1);
      const prefix = field(345, 155);
      const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
      longName = null;
      const padded = Math.ceil(size / 512) * 512;
      const wanted = (type === "0" || type === "") && names.has(name);
      if (type === "L" || wanted) {
        if (size > MAX_MANIFEST_BYTES) throw new Error(`${name} is too large`);
        if (!(await fill(512 + padded))) throw new Error("truncated tar");
        const body = decoder.decode(buf.subarray(512, 512 + size));
        if (wanted) return body;
        longName = body.replace(/\0.*$/s, "");
        buf = buf.subarray(512 + padded);
        continue;
      }
      // Skip this entry's content without holding it.
      let skip = 512 + padded;
      while (skip > 0) {
        if (buf.length === 0 && !(await fill(1))) throw new Error("truncated tar");
        const n = Math.min(skip, buf.length);
        buf = buf.subarray(n);
        skip -= n;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
