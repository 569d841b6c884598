/**
 * @module ingest/submission-parts
 * The body of a submit request and its parts (archive, claims, trace): read from the multipart
 * body within the challenge's limits, then judged (sizes, the archive's signature, the runner's
 * own validator and admission rules, the dependencies it brings, the claims schema, the trace
 * format). Invariants: nothing is stored here; the same parts always get the same verdict on a
 * challenge, which is what lets a refusal be replayed under its `Idempotency-Key`; expected
 * failures are values.
 */
import {
  checkAdmission,
  createAdmissionSink,
  DEFAULT_ARCHIVE_LIMITS,
  detectArchiveFormat,
  readArchive,
} from "@bouts/archive";
import { problemFromZodError } from "@bouts/contracts";
import { sha256Hex, type SubmitChallenge } from "@bouts/db";
import type { IngestConfig } from "./config.ts";
import type { IngestError } from "./errors.ts";
import { ok, refuse, type Result } from "./result.ts";
import { ClaimsSchema, type ChallengeLimitsBody } from "./schemas.ts";
import type { StoredObject } from "./storage.ts";
import { checkSubmissionDependencies, createDependencyCatcher } from "./submission-dependencies.ts";
import { archiveContentType, checkTrace, readBodyLimited, type ArchiveType } from "./uploads.ts";

const MULTIPART_OVERHEAD = 64 * 1024;
const PARTS = new Set(["archive", "claims", "trace"]);

/** The parts of a multipart submission as sent, not yet checked. */
export type RawParts = {
  archive: File;
  /** SHA-256 of the archive part's bytes. */
  archiveSha: string;
  archiveBytes: Uint8Array;
  claimsText: string | null;
  trace: { bytes: Uint8Array; sha256: string; size: number } | null;
};

/** The parsed, checked parts of a submission, not yet stored. */
export type SubmissionParts = {
  archive: StoredObject & { sha256: string; type: ArchiveType };
  trace: (StoredObject & { sha256: string }) | null;
  claimsJson: string | null;
};

/** A challenge an agent may see (not a draft), with its stored limits parsed once. */
export type OpenChallenge = SubmitChallenge & { parsedLimits: ChallengeLimitsBody };

/** The archive's size limit on this challenge: the challenge's, within the platform's. */
function archiveLimitOf(cfg: IngestConfig, ch: OpenChallenge): number {
  return Math.min(ch.parsedLimits.maxArchiveBytes ?? cfg.maxArchiveBytes, cfg.maxArchiveBytes);
}

/**
 * Reads the multipart body and splits it into its parts, refusing a body that has no such
 * parts (415, 413 for the whole body, 400); nothing is judged on the parts' content yet.
 */
export async function readSubmissionParts(
  request: Request,
  cfg: IngestConfig,
  ch: OpenChallenge,
): Promise<Result<RawParts>> {
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!/^multipart\/form-data;/i.test(contentType)) {
    return refuse({
      reason: "unsupported-media-type",
      detail: "Send the submission as multipart/form-data with an `archive` file part.",
    });
  }
  const bodyLimit =
    archiveLimitOf(cfg, ch) + cfg.maxTraceBytes + cfg.maxClaimsBytes + MULTIPART_OVERHEAD;
  const body = await readBodyLimited(request, bodyLimit, "submission body");
  if (!body.ok) return body;
  let form: FormData;
  try {
    form = await new Response(body.value, {
      headers: { "Content-Type": contentType },
    }).formData();
  } catch {
    return refuse(invalid("body", "the multipart body could not be parsed"));
  }
  for (const name of new Set(form.keys())) {
    if (!PARTS.has(name))
      return refuse(invalid(name, "unknown part: only archive, claims and trace are accepted"));
    if (form.getAll(name).length > 1)
      return refuse(invalid(name, "the part appears more than once"));
  }
  const archive = form.get("archive");
  if (!(archive instanceof File))
    return refuse(invalid("archive", "a file part named archive is required"));
  const traceFile = form.get("trace");
  if (traceFile !== null && !(traceFile instanceof File)) {
    return refuse(invalid("trace", "the trace must be a file part"));
  }
  const claims = form.get("claims");
  const archiveBytes = new Uint8Array(await archive.arrayBuffer());
  const traceBytes = traceFile ? new Uint8Array(await traceFile.arrayBuffer()) : null;
  return ok({
    archive,
    archiveBytes,
    archiveSha: await sha256Hex(archiveBytes),
    claimsText: claims === null ? null : typeof claims === "string" ? claims : await claims.text(),
    trace: traceBytes && {
      bytes: traceBytes,
      sha256: await sha256Hex(traceBytes),
      size: traceBytes.byteLength,
    },
  });
}

/**
 * Judges the parts' content (sizes, the archive's signature and the runner's own validator,
 * the claims schema, the trace format); nothing is stored yet. The same parts always get the
 * same verdict on a challenge, which is what lets a refusal be replayed under its key.
 */
export async function checkSubmissionParts(
  raw: RawParts,
  cfg: IngestConfig,
  ch: OpenChallenge,
): Promise<Result<SubmissionParts>> {
  const archiveLimit = archiveLimitOf(cfg, ch);
  if (raw.archive.size > archiveLimit) {
    return refuse({ reason: "payload-too-large", what: "archive", limit: archiveLimit });
  }
  const archiveBytes = raw.archiveBytes;
  const type = detectArchiveFormat(archiveBytes);
  if (!type) {
    return refuse({
      reason: "unsupported-media-type",
      detail: "The archive is neither .tar.gz (gzip) nor .zip by its signature.",
    });
  }
  // The runner's own validator and admission rules, in full, before anything is stored: an
  // archive it would refuse never reaches R2 or the queue. The dependency files at its root
  // are caught on the way, for the challenge's dependency rules.
  const catcher = createDependencyCatcher();
  const admission = createAdmissionSink(catcher.sink);
  const checked = await readArchive(
    archiveBytes,
    { ...DEFAULT_ARCHIVE_LIMITS, maxArchiveBytes: archiveLimit },
    admission.sink,
  );
  if (!checked.ok)
    return refuse({ reason: "archive-refused", what: "archive", refusal: checked.error });
  const admitted = checkAdmission(
    {
      files: checked.value.files.map((f) => f.path),
      dirs: admission.dirs,
      samples: admission.samples,
    },
    { module: ch.interfaceModule },
  );
  if (!admitted.ok)
    return refuse({ reason: "archive-refused", what: "archive", refusal: admitted.error });
  const dependencies = checkSubmissionDependencies(catcher.filesAt(admitted.value.wrapper), ch);
  if (!dependencies.ok) return dependencies;

  let claimsJson: string | null = null;
  const text = raw.claimsText;
  if (text !== null) {
    if (new TextEncoder().encode(text).byteLength > cfg.maxClaimsBytes) {
      return refuse({
        reason: "payload-too-large",
        what: "claims part",
        limit: cfg.maxClaimsBytes,
      });
    }
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(text);
    } catch {
      return refuse(invalid("claims", "the claims part is not valid JSON"));
    }
    const parsed = ClaimsSchema.safeParse(parsedJson);
    if (!parsed.success) {
      return refuse({ reason: "invalid", problem: problemFromZodError(parsed.error, "claims") });
    }
    claimsJson = JSON.stringify(parsed.data);
  }

  let trace: SubmissionParts["trace"] = null;
  if (raw.trace !== null) {
    if (raw.trace.size > cfg.maxTraceBytes) {
      return refuse({ reason: "payload-too-large", what: "trace", limit: cfg.maxTraceBytes });
    }
    if (raw.trace.size === 0) return refuse(invalid("trace", "the trace is empty"));
    const traced = checkTrace(raw.trace.bytes, cfg.maxTraceBytes);
    if (!traced.ok) return traced;
    trace = {
      key: `traces/${raw.trace.sha256}`,
      bytes: raw.trace.bytes,
      sha256: raw.trace.sha256,
      contentType: "application/octet-stream",
    };
  }
  return ok({
    archive: {
      key: `artifacts/${raw.archiveSha}`,
      bytes: archiveBytes,
      sha256: raw.archiveSha,
      type,
      contentType: archiveContentType(type),
    },
    trace,
    claimsJson,
  });
}

/** A 400 naming one part (or header) of the submission and what is wrong with it. */
export function invalid(path: string, message: string): IngestError {
  return {
    reason: "invalid",
    problem: {
      type: "urn:bouts:problem:validation",
      title: "Invalid request",
      status: 400,
      detail: `Invalid submission: ${path}: ${message}`,
      errors: [{ path, message }],
    },
  };
}
