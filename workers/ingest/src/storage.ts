/**
 * @module ingest/storage
 * Content-addressed R2 objects (`artifacts/<sha256>`, `traces/<sha256>`, `bundles/<sha256>`)
 * shared by every row that names the same bytes. Invariant, with the write order in
 * docs/storage-schema.md: an object exists while some D1 row references it, and an undo
 * removes an object only when no row does. Because R2 and D1 share no transaction, the undo
 * deletes first and then re-checks the references, putting the bytes back if a concurrent
 * request committed a row in between; a submission stores its objects after its own commit,
 * so an undo that ran before that commit cannot remove them.
 */
import { isObjectReferenced, type Db } from "@bouts/db";

/** An object to store: its key, bytes and media type. */
export type StoredObject = { key: string; bytes: Uint8Array; contentType: string };

/** Stores the object; identical bytes under the same key make this a harmless overwrite. */
export async function putObject(bucket: R2Bucket, o: StoredObject): Promise<void> {
  await bucket.put(o.key, o.bytes, { httpMetadata: { contentType: o.contentType } });
}

/** Stores the object unless identical bytes are already there (the key is their hash). */
export async function ensureObject(bucket: R2Bucket, o: StoredObject): Promise<void> {
  if (await bucket.head(o.key)) return;
  await putObject(bucket, o);
}

/** Undo of `ensureObject` for a request that failed: removes the object if nothing uses it. */
export async function releaseObject(bucket: R2Bucket, db: Db, o: StoredObject): Promise<void> {
  if (await isObjectReferenced(db, o.key)) return;
  await bucket.delete(o.key);
  // A concurrent request may have committed a row naming these bytes meanwhile.
  if (await isObjectReferenced(db, o.key)) await ensureObject(bucket, o);
}

/** Undo that never throws: a failure is logged with the key so an operator can sweep it. */
export async function releaseObjectQuietly(
  bucket: R2Bucket,
  db: Db,
  o: StoredObject,
): Promise<void> {
  try {
    await releaseObject(bucket, db, o);
  } catch (err) {
    console.error(`could not release R2 object ${o.key}`, err);
  }
}
