/**
 * @module ingest/bundle
 * Checks an uploaded challenge bundle (.tar.gz) at the edge with the runner's own archive
 * validator (@bouts/archive), and reads and validates its manifest (`challenge.json`) with the
 * runner's contract. Invariants: the whole archive is validated while it streams (a bomb, a
 * link, a lying header is refused before anything is stored); only the manifest's bytes are
 * kept, never a hidden test's content.
 */
import {
  DEFAULT_ARCHIVE_LIMITS,
  readArchive,
  type ArchiveRefusal,
  type ArchiveSink,
} from "@bouts/archive";
import { ChallengeManifestSchema, type ChallengeManifest, formatZodIssues } from "@bouts/contracts";
import type { ProblemFieldError } from "@bouts/contracts";
import type { Result } from "@bouts/result";
import { concatBytes } from "./uploads.ts";

/** Why a bundle was refused: the archive itself, or its manifest. */
export type BundleError =
  | { reason: "archive"; refusal: ArchiveRefusal }
  | { reason: "manifest"; detail: string; errors?: ProblemFieldError[] };

const MANIFEST = "challenge.json";
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** A sink that keeps the manifest's bytes (up to its cap) and discards every other file. */
function captureManifest(): { sink: ArchiveSink; text(): string | null } {
  let chunks: Uint8Array[] | null = null;
  let bytes = 0;
  const sink: ArchiveSink = {
    openFile(entry) {
      if (entry.path !== MANIFEST) return { write() {}, close() {} };
      chunks = [];
      return {
        write(chunk) {
          bytes += chunk.byteLength;
          if (bytes > MAX_MANIFEST_BYTES) throw new Error(`${MANIFEST} is over 1 MiB`);
          chunks!.push(chunk.slice());
        },
        close() {},
      };
    },
  };
  return {
    sink,
    text: () => (chunks === null ? null : new TextDecoder().decode(concatBytes(chunks, bytes))),
  };
}

/** Validates a .tar.gz bundle as the runner will, then finds and validates its manifest. */
export async function readBundleManifest(
  bytes: Uint8Array,
  maxBundleBytes: number,
): Promise<Result<ChallengeManifest, BundleError>> {
  const capture = captureManifest();
  const checked = await readArchive(
    bytes,
    { ...DEFAULT_ARCHIVE_LIMITS, maxArchiveBytes: maxBundleBytes },
    capture.sink,
  );
  if (!checked.ok) return { ok: false, error: { reason: "archive", refusal: checked.error } };
  if (checked.value.format !== "tar.gz")
    return { ok: false, error: { reason: "manifest", detail: "The bundle must be a .tar.gz." } };
  const text = capture.text();
  if (text === null) {
    return {
      ok: false,
      error: { reason: "manifest", detail: "The bundle has no challenge.json at its root." },
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {
      ok: false,
      error: { reason: "manifest", detail: "challenge.json is not valid JSON." },
    };
  }
  const parsed = ChallengeManifestSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = formatZodIssues(parsed.error);
    return {
      ok: false,
      error: {
        reason: "manifest",
        detail: `challenge.json breaks the manifest schema: ${errors
          .slice(0, 3)
          .map((e) => `${e.path}: ${e.message}`)
          .join("; ")}`,
        errors,
      },
    };
  }
  // Every baseline names a folder the bundle ships: checked here, so publish cannot miss one.
  const paths = checked.value.files.map((f) => f.path);
  const missing = parsed.data.baselines.filter(
    (b) => !paths.some((p) => p.startsWith(`${b.path}/`)),
  );
  if (missing.length > 0) {
    return {
      ok: false,
      error: {
        reason: "manifest",
        detail: `challenge.json declares baselines whose folders hold no files: ${missing.map((b) => `${b.id} (${b.path}/)`).join(", ")}.`,
        errors: missing.map((b) => ({
          path: `baselines.${parsed.data.baselines.indexOf(b)}.path`,
          message: `no files under ${b.path}/ in the bundle`,
        })),
      },
    };
  }
  return { ok: true, value: parsed.data };
}
