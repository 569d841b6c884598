/**
 * @module ingest/baselines
 * A challenge's baselines at publish: each folder the manifest's `baselines` names is cut out
 * of the bundle, packed as a submission archive (.tar.gz), stored content-addressed in R2 and
 * queued as a submission of the baseline's own agent (`agents.baseline_kind`), so the score role
 * scores it with the same pipeline as any entrant. Invariants: only the publish step creates a
 * baseline (no route takes a baseline flag); ids are deterministic, so a repeat queues nothing
 * twice; a queued row whose message is lost is re-sent by the scoring reconciler.
 */
import { DEFAULT_ARCHIVE_LIMITS, packTar, readArchive, type PackedFile } from "@bouts/archive";
import { submissionMessage, type BaselineSpec, type ChallengeManifest } from "@bouts/contracts";
import { insertBaselineSubmission, sha256Hex, type ChallengeRow, type Db } from "@bouts/db";
import type { Result } from "@bouts/result";
import { ensureObject } from "./storage.ts";

/** The files of the bundle under `folder/`, relative to it. */
export async function extractFolder(
  bundle: Uint8Array,
  folder: string,
  maxBundleBytes: number,
): Promise<Result<PackedFile[], string>> {
  const prefix = `${folder}/`;
  const files: PackedFile[] = [];
  const read = await readArchive(
    bundle,
    { ...DEFAULT_ARCHIVE_LIMITS, maxArchiveBytes: maxBundleBytes },
    {
      openFile(entry) {
        if (!entry.path.startsWith(prefix)) return { write() {}, close() {} };
        const chunks: Uint8Array[] = [];
        return {
          write: (c) => void chunks.push(c.slice()),
          close() {
            const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
            let at = 0;
            for (const c of chunks) {
              bytes.set(c, at);
              at += c.length;
            }
            files.push({ path: entry.path.slice(prefix.length), data: bytes });
          },
        };
      },
    },
  );
  if (!read.ok) return { ok: false, error: `the bundle does not read: ${read.error.reason}` };
  if (files.length === 0) return { ok: false, error: `the bundle has no files under ${prefix}` };
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: true, value: files };
}

/** The .tar.gz submission archive of a baseline's files (validated like any upload). */
export async function packBaseline(files: PackedFile[]): Promise<Uint8Array> {
  const gz = new Blob([packTar(files)]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gz).arrayBuffer());
}

/** A baseline's archive, cut out of the bundle. */
export async function buildBaselineArchive(
  bundle: Uint8Array,
  spec: BaselineSpec,
  maxBundleBytes: number,
): Promise<Result<Uint8Array, string>> {
  const files = await extractFolder(bundle, spec.path, maxBundleBytes);
  if (!files.ok) return { ok: false, error: `baseline ${spec.id}: ${files.error}` };
  return { ok: true, value: await packBaseline(files.value) };
}

/**
 * Queues every baseline of a just-published challenge for scoring. Returns what it queued, or
 * the first baseline that could not be built (the bundle was checked at upload, so this is a
 * fault to log, not a client error).
 */
export async function queueBaselines(
  env: Pick<Env, "ARTIFACTS" | "SUBMISSIONS">,
  db: Db,
  ch: ChallengeRow,
  manifest: ChallengeManifest,
  bundle: Uint8Array,
  maxBundleBytes: number,
  now: number,
): Promise<Result<string[], string>> {
  const queued: string[] = [];
  for (const spec of manifest.baselines) {
    const archive = await buildBaselineArchive(bundle, spec, maxBundleBytes);
    if (!archive.ok) return archive;
    const sha256 = await sha256Hex(archive.value);
    const key = `artifacts/${sha256}`;
    await ensureObject(env.ARTIFACTS, {
      key,
      bytes: archive.value,
      contentType: "application/gzip",
    });
    const row = await insertBaselineSubmission(db, {
      challengeId: ch.id,
      operatorId: ch.createdBy,
      baselineId: spec.id,
      label: spec.label,
      kind: spec.kind,
      artifact: { sha256, key, size: archive.value.byteLength },
      now,
    });
    if (!row.created) continue;
    const message = submissionMessage({
      submissionId: row.submissionId,
      challengeId: ch.id,
      agentId: row.agentId,
    });
    await env.SUBMISSIONS.send(message, { contentType: "json" });
    queued.push(row.submissionId);
  }
  return { ok: true, value: queued };
}
