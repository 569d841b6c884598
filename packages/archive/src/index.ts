/**
 * @module archive
 * One hostile-archive validator for ingest (workerd) and the runner (Node). Invariants: no
 * `node:*` import and no Node-only library (decompression is the platform's
 * `DecompressionStream`); names are limited in UTF-8 bytes; every limit is enforced while
 * bytes are produced; nothing is thrown.
 */
export { DEFAULT_ARCHIVE_LIMITS, RATIO_FLOOR_BYTES, type ArchiveLimits } from "./limits.ts";
export {
  describeArchiveRefusal,
  type ArchiveRefusal,
  type ArchiveRefusalReason,
} from "./refusal.ts";
export type { ArchiveEntryInfo, ArchiveSink, FileSink } from "./delivery.ts";
export { detectNestedSignature } from "./delivery.ts";
export { normalizeEntryPath, countUtf8Bytes } from "./names.ts";
export { updateCrc32 } from "./crc32.ts";
export { packTar, type PackedFile } from "./pack.ts";
export {
  detectArchiveFormat,
  readArchive,
  type ArchiveFormat,
  type ArchiveSummary,
} from "./read-archive.ts";
export {
  ADMISSION_REASONS,
  checkAdmission,
  isAdmissionRefusal,
  createAdmissionSink,
  describeAdmissionRefusal,
  findWrapperFolder,
  isInDependencyDir,
  DEPENDENCY_DIRS,
  type AdmissionInput,
  type AdmissionRefusal,
  type AdmissionRules,
} from "./admission.ts";
export {
  classifyFile,
  FileSampler,
  HEAD_BYTES,
  looksLikeZip,
  peSignatureOffset,
  unscannableByContent,
  unscannableByName,
  ZIP_TAIL_BYTES,
  type FileSample,
} from "./code-sniff.ts";
export {
  checkSourceEncoding,
  findCodingCookies,
  isInterpreterSource,
  normalizeCodecName,
  Utf8Validator,
  type EncodingSample,
} from "./source-encoding.ts";
export {
  canonicalFilesSha256,
  CANONICAL_FILES_VERSION,
  type CanonicalFile,
  type CanonicalFilesError,
} from "./canonical.ts";
