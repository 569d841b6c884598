// Trusted-side observation of files the subject leaves in the shared folder (/chan): loaded only
// in trusted test processes (through `bouts:subject`), never in the subject. Invariants: every
// file is opened without following links, must be a regular file of at most MAX_SHARED_BYTES and
// is copied, never opened in place, into this process's own temporary folder; the subject's
// bytes are data (SQLite parses a private copy); anything unreadable is null, so a test that
// needs the observation fails closed.
import { Buffer } from "node:buffer";
import {
  closeSync,
  constants,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Most bytes read from one shared file (the shared folder is a 1 MiB tmpfs). */
export const MAX_SHARED_BYTES = 1024 * 1024;
/** SQLite's companion files whose content belongs to the database. */
const COMPANIONS = ["", "-wal", "-journal"];

/** The bytes of regular file `file` (no link followed, at most MAX_SHARED_BYTES), or null. */
function readShared(file) {
  let fd;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SHARED_BYTES) return null;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * What the SQLite database at `file` (a path in the shared folder the subject wrote) holds, read
 * here: `{ tables: {name: rows}, raw: Buffer }`, `raw` being the bytes of the database and of its
 * `-wal` and `-journal` files (free pages and old frames included). Null when the file is
 * missing, not a regular file, too large or not a database.
 * @param {string} file
 * @returns {{tables: Record<string, Record<string, unknown>[]>, raw: Buffer} | null}
 */
export function readSharedDatabase(file) {
  if (typeof file !== "string") throw new TypeError("bouts: readSharedDatabase needs a path");
  const parts = COMPANIONS.map((suffix) => readShared(file + suffix));
  if (parts[0] === null || parts[0].length === 0) return null;
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-shared-"));
  try {
    const copy = path.join(dir, "copy.db");
    COMPANIONS.forEach((suffix, i) => {
      if (parts[i] !== null) writeFileSync(copy + suffix, parts[i], { mode: 0o600 });
    });
    let db;
    try {
      // Not read-only: replaying a copied -wal needs its -shm beside it (in our own folder).
      db = new DatabaseSync(copy);
      const tables = {};
      const names = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name)
        .filter((n) => typeof n === "string");
      for (const name of names)
        tables[name] = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all();
      return { tables, raw: Buffer.concat(parts.filter((p) => p !== null)) };
    } catch {
      return null;
    } finally {
      db?.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * True when `text` appears in a database read by readSharedDatabase: in any row's value (text,
 * or a blob read as UTF-8 and Latin-1), or anywhere in its raw bytes, as is, base64, hex or
 * reversed (an encoding is not a hash), in any letter case.
 * @param {{tables: Record<string, Record<string, unknown>[]>, raw: Buffer}} stored
 * @param {string} text
 */
export function databaseHolds(stored, text) {
  const forms = [
    text,
    Buffer.from(text).toString("base64").replace(/=+$/, ""),
    Buffer.from(text).toString("hex"),
    [...text].reverse().join(""),
  ].map((f) => f.toLowerCase());
  const hit = (s) => {
    const lower = s.toLowerCase();
    return forms.some((f) => lower.includes(f));
  };
  for (const rows of Object.values(stored.tables)) {
    for (const row of rows) {
      for (const v of Object.values(row)) {
        if (typeof v === "string" && hit(v)) return true;
        if (v instanceof Uint8Array) {
          const b = Buffer.from(v);
          if (hit(b.toString("utf8")) || hit(b.toString("latin1"))) return true;
        }
      }
    }
  }
  return hit(stored.raw.toString("latin1")) || hit(stored.raw.toString("utf16le"));
}
