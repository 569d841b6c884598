/**
 * @module ingest/bundle-upload
 * Storing a draft challenge's bundle (`PUT /v1/challenges/{id}/bundle`): the media type, the
 * size, the gzip signature, the whole archive and its manifest are checked before anything is
 * written. Invariants: only a draft changes; the row is written before the object it names
 * (docs/storage-schema.md), and goes back to its previous bundle if the object cannot be
 * stored; a new bundle resets the QA verdict; the replaced bundle's object is released once no
 * row names it. Expected failures are values (`Result`), for the route to map.
 */
import { detectArchiveFormat } from "@bouts/archive";
import {
  revertDraftBundle,
  sha256Hex,
  updateDraftChallenge,
  type ChallengeRow,
  type Db,
} from "@bouts/db";
import type { ChallengeManifest } from "@bouts/contracts";
import { readBundleManifest } from "./bundle.ts";
import type { IngestConfig } from "./config.ts";
import type { IngestError } from "./errors.ts";
import { ok, refuse, type Result } from "./result.ts";
import { ensureObject, releaseObjectQuietly } from "./storage.ts";
import { readBodyLimited } from "./uploads.ts";

/** The refusal of a change to a challenge that is no longer a draft. */
export function notDraftError(status: ChallengeRow["status"]): IngestError {
  return {
    reason: "conflict",
    detail: `The challenge is ${status}; only drafts can change. Create a new challenge instead.`,
  };
}

/** A checked bundle: its bytes and manifest. */
export interface UploadedBundle {
  bytes: Uint8Array;
  manifest: ChallengeManifest;
}

/**
 * Reads and checks an uploaded bundle: 415 for another media type or non-gzip bytes, 413 past
 * `maxBundleBytes`, 422 for a refused archive or manifest, or a manifest id that is not `slug`.
 * The one set of checks for a draft's bundle and a published challenge's new version.
 */
export async function readUploadedBundle(
  cfg: IngestConfig,
  upload: Omit<BundleUpload, "challenge">,
  slug: string,
): Promise<Result<UploadedBundle>> {
  const type = (upload.contentType ?? "").split(";")[0]?.trim();
  if (type !== "application/gzip" && type !== "application/x-gzip") {
    return refuse({
      reason: "unsupported-media-type",
      detail: "Send the bundle as application/gzip.",
    });
  }
  const body = await readBodyLimited(upload.request, cfg.maxBundleBytes, "bundle");
  if (!body.ok) return body;
  const bytes = body.value;
  if (detectArchiveFormat(bytes) !== "tar.gz") {
    return refuse({
      reason: "unsupported-media-type",
      detail: "The bundle is not gzip data (.tar.gz).",
    });
  }
  const manifest = await readBundleManifest(bytes, cfg.maxBundleBytes);
  if (!manifest.ok) {
    const e = manifest.error;
    if (e.reason === "archive")
      return refuse({ reason: "archive-refused", what: "bundle", refusal: e.refusal });
    return refuse({
      reason: "unprocessable",
      detail: e.detail,
      ...(e.errors ? { errors: e.errors } : {}),
    });
  }
  if (manifest.value.id !== slug) {
    return refuse({
      reason: "unprocessable",
      detail: `The manifest's id (${manifest.value.id}) differs from the challenge's slug (${slug}).`,
    });
  }
  return ok({ bytes, manifest: manifest.value });
}

/** What a bundle upload needs: the owner's challenge, the request and where to store. */
export interface BundleUpload {
  challenge: ChallengeRow;
  /** The request's `Content-Type`, as sent. */
  contentType: string | undefined;
  request: Request;
}

/**
 * Checks and stores a bundle for a draft: 409 unless a draft, 415 for another media type or
 * non-gzip bytes, 413 past `maxBundleBytes`, 422 for a refused archive or manifest (or a
 * manifest id that is not the slug), 503 when D1 or R2 fails (nothing changed).
 */
export async function storeBundle(
  env: Pick<Env, "ARTIFACTS">,
  db: Db,
  cfg: IngestConfig,
  upload: BundleUpload,
): Promise<Result<void>> {
  const ch = upload.challenge;
  if (ch.status !== "draft") return refuse(notDraftError(ch.status));
  const read = await readUploadedBundle(cfg, upload, ch.slug);
  if (!read.ok) return read;
  const { bytes, manifest } = read.value;
  const sha256 = await sha256Hex(bytes);
  const object = { key: `bundles/${sha256}`, bytes, contentType: "application/gzip" };
  // Write order, as for submissions (docs/storage-schema.md): the row first, then the object
  // it names, so that a concurrent undo of the same bytes can never leave the row without
  // its object; if the object cannot be stored, the row goes back to its previous bundle.
  let updated: boolean;
  try {
    updated = await updateDraftChallenge(
      db,
      ch.id,
      {
        bundleKey: object.key,
        bundleSha256: sha256,
        bundleManifest: JSON.stringify(manifest),
        qaReport: null,
        qaPassed: null,
      },
      Date.now(),
    );
  } catch (err) {
    console.error("D1 bundle update failed", err);
    return refuse({ reason: "unavailable", service: "database", retryAfter: 30 });
  }
  if (!updated) return refuse(notDraftError("published"));
  try {
    await ensureObject(env.ARTIFACTS, object);
  } catch (err) {
    console.error("R2 put of a bundle failed", err);
    const previous = {
      bundleKey: ch.bundleKey,
      bundleSha256: ch.bundleSha256,
      bundleManifest: ch.bundleManifest,
      qaReport: ch.qaReport,
      qaPassed: ch.qaPassed,
    };
    await revertDraftBundle(db, ch.id, object.key, previous, Date.now()).catch((e: unknown) =>
      console.error("could not revert the bundle fields", e),
    );
    await releaseObjectQuietly(env.ARTIFACTS, db, object);
    return refuse({ reason: "unavailable", service: "artifact store", retryAfter: 30 });
  }
  if (ch.bundleKey && ch.bundleKey !== object.key) {
    const old = await env.ARTIFACTS.get(ch.bundleKey);
    if (old) {
      const oldObject = {
        key: ch.bundleKey,
        bytes: new Uint8Array(await old.arrayBuffer()),
        contentType: "application/gzip",
      };
      await releaseObjectQuietly(env.ARTIFACTS, db, oldObject);
    }
  }
  return ok(undefined);
}
