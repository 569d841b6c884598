import crypto from "node:crypto";
import bcrypt from "bcrypt";

export function store(user: { password: string }, salt: string) {
  // ruleid: bouts.js.weak-password-hashing.fast-hash-for-password
  const a = crypto.createHash("md5").update(user.password).digest("hex");
  // ruleid: bouts.js.weak-password-hashing.fast-hash-for-password
  const b = crypto
    .createHash("sha256")
    .update(salt + user.password)
    .digest("hex");
  // ruleid: bouts.js.weak-password-hashing.low-work-factor
  const c = bcrypt.hashSync(user.password, 4);
  // ruleid: bouts.js.weak-password-hashing.low-work-factor
  const d = crypto.pbkdf2Sync(user.password, salt, 1000, 32, "sha256");
  return [a, b, c, d];
}

export function fine(user: { password: string }, body: string, salt: string) {
  // ok: bouts.js.weak-password-hashing.fast-hash-for-password
  const etag = crypto.createHash("sha1").update(body).digest("hex");
  // ok: bouts.js.weak-password-hashing.low-work-factor
  const h = bcrypt.hashSync(user.password, 12);
  // ok: bouts.js.weak-password-hashing.low-work-factor
  const k = crypto.pbkdf2Sync(user.password, salt, 600000, 32, "sha256");
  return [etag, h, k];
}
