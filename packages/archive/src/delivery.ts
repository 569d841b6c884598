/**
 * @module archive/delivery
 * Delivers one admitted file's bytes to the caller's sink, and meters what the decompressors
 * produce. Invariants: every sink callback is guarded (a throw or rejection becomes an
 * `unwritable-entry` refusal naming the entry); no file byte reaches the sink before the
 * content was checked for an archive signature; only a 262-byte prefix is ever held back.
 */
import { RATIO_FLOOR_BYTES, type ArchiveLimits } from "./limits.ts";
import { buildRefusal, type ArchiveRefusal } from "./refusal.ts";

/** What a sink is told about an admitted entry. */
export interface ArchiveEntryInfo {
  /** Normalized relative POSIX path (no leading `./`, no trailing `/`). */
  path: string;
  kind: "file" | "dir";
  /** Any execute bit was set in the stored mode. */
  executable: boolean;
  /** The declared size, for files when the format states it up front. */
  size?: number;
}

/** Receives one file's bytes in order; `abort` is called instead of `close` on refusal. */
export interface FileSink {
  write(chunk: Uint8Array): void | Promise<void>;
  close(): void | Promise<void>;
  abort?(): void | Promise<void>;
}

/** Receives admitted entries; folders are optional (parents are implied by file paths). */
export interface ArchiveSink {
  openFile(entry: ArchiveEntryInfo): FileSink | Promise<FileSink>;
  directory?(entry: ArchiveEntryInfo): void | Promise<void>;
}

/** Formats a thrown value for a refusal's detail (with its `code` when it has one). */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return `${typeof code === "string" ? `${code}: ` : ""}${e.message || e.name}`;
  }
  return String(e);
}

/** Runs a sink callback; a throw or a rejection becomes `unwritable-entry`. */
export async function callSink(
  entry: string,
  fn: () => void | Promise<void>,
): Promise<ArchiveRefusal | null> {
  try {
    await fn();
    return null;
  } catch (e) {
    return buildRefusal("unwritable-entry", entry, describeError(e));
  }
}

// ─── Archive signatures ───

const SIGNATURES: { name: string; at: number; bytes: number[] }[] = [
  { name: "zip", at: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { name: "zip (empty)", at: 0, bytes: [0x50, 0x4b, 0x05, 0x06] },
  { name: "zip (spanned)", at: 0, bytes: [0x50, 0x4b, 0x07, 0x08] },
  { name: "gzip", at: 0, bytes: [0x1f, 0x8b] },
  { name: "bzip2", at: 0, bytes: [0x42, 0x5a, 0x68] },
  { name: "xz", at: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: "7z", at: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { name: "rar", at: 0, bytes: [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07] },
  { name: "zstd", at: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: "tar", at: 257, bytes: [0x75, 0x73, 0x74, 0x61, 0x72] },
];

/** The bytes of content needed to recognize every signature. */
export const SIGNATURE_PREFIX_BYTES = 262;

/** Names the archive format whose signature starts `prefix`, if any. */
export function detectNestedSignature(prefix: Uint8Array): string | null {
  for (const s of SIGNATURES) {
    if (prefix.length < s.at + s.bytes.length) continue;
    if (s.bytes.every((b, i) => prefix[s.at + i] === b)) {
      // "BZh" is only bzip2 when a block size digit follows.
      if (s.name === "bzip2" && !(prefix.length > 3 && prefix[3]! >= 0x31 && prefix[3]! <= 0x39))
        continue;
      return s.name;
    }
  }
  return null;
}

// ─── One file ───

/** Streams one file's bytes to its sink, holding back the signature prefix until checked. */
export class FileDelivery {
  readonly #path: string;
  readonly #sink: FileSink | null;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #checked = false;
  bytes = 0;

  private constructor(path: string, sink: FileSink | null) {
    this.#path = path;
    this.#sink = sink;
  }

  /** Opens the file on the sink (if any); a sink failure is a refusal. */
  static async open(
    sink: ArchiveSink | undefined,
    info: ArchiveEntryInfo,
  ): Promise<FileDelivery | ArchiveRefusal> {
    if (!sink) return new FileDelivery(info.path, null);
    let file: FileSink | null = null;
    const failed = await callSink(info.path, async () => {
      file = await sink.openFile(info);
    });
    if (failed) return failed;
    return new FileDelivery(info.path, file);
  }

  /** Takes the next chunk of content. */
  async push(chunk: Uint8Array): Promise<ArchiveRefusal | null> {
    if (chunk.length === 0) return null;
    this.bytes += chunk.length;
    if (this.#checked) return this.#write(chunk);
    // Copy: the chunk may be a view into a buffer the decompressor reuses.
    this.#held.push(chunk.slice());
    this.#heldBytes += chunk.length;
    if (this.#heldBytes < SIGNATURE_PREFIX_BYTES) return null;
    return this.#release();
  }

  /** Ends the file: checks a short file's signature, then closes it. */
  async finish(): Promise<ArchiveRefusal | null> {
    if (!this.#checked) {
      const released = await this.#release();
      if (released) return released;
    }
    const sink = this.#sink;
    return sink ? callSink(this.#path, () => sink.close()) : null;
  }

  /** Abandons the file after a refusal; failures here are ignored (the refusal stands). */
  async abort(): Promise<void> {
    const sink = this.#sink;
    if (sink?.abort) await callSink(this.#path, () => sink.abort!());
  }

  async #release(): Promise<ArchiveRefusal | null> {
    this.#checked = true;
    const prefix = new Uint8Array(this.#heldBytes);
    let at = 0;
    for (const c of this.#held) {
      prefix.set(c, at);
      at += c.length;
    }
    this.#held = [];
    const found = detectNestedSignature(prefix);
    if (found) return buildRefusal("nested-archive", this.#path, `content is ${found} data`);
    return this.#write(prefix);
  }

  async #write(chunk: Uint8Array): Promise<ArchiveRefusal | null> {
    const sink = this.#sink;
    if (!sink || chunk.length === 0) return null;
    return callSink(this.#path, () => sink.write(chunk));
  }
}

// ─── Metering ───

/** Counts compressed input and expanded output; refuses past the total or the ratio. */
export class ExpansionMeter {
  readonly #limits: ArchiveLimits;
  compressed = 0;
  expanded = 0;

  constructor(limits: ArchiveLimits) {
    this.#limits = limits;
  }

  /** Records compressed bytes handed to a decompressor (or read as stored data). */
  addCompressed(n: number): void {
    this.compressed += n;
  }

  /** Records produced bytes; `entry` is the entry they belong to, if any. */
  addExpanded(n: number, entry: string | undefined): ArchiveRefusal | null {
    this.expanded += n;
    if (this.expanded > this.#limits.maxExpandedBytes) {
      return buildRefusal("too-large-expanded", entry, `over ${this.expanded} bytes`, {
        limit: this.#limits.maxExpandedBytes,
      });
    }
    if (
      this.expanded > RATIO_FLOOR_BYTES &&
      this.expanded > this.#limits.maxRatio * Math.max(this.compressed, 1)
    ) {
      const ratio = Math.floor(this.expanded / Math.max(this.compressed, 1));
      return buildRefusal(
        "ratio-exceeded",
        entry,
        `${this.expanded} bytes from ${this.compressed} (${ratio}:1)`,
        { limit: this.#limits.maxRatio },
      );
    }
    return null;
  }
}
