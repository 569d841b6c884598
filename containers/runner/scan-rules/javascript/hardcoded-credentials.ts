import jwt from "jsonwebtoken";

// ruleid: bouts.js.hardcoded-credentials.secret-literal
const DB_PASSWORD = "s3cr3t-Pa55";
// ruleid: bouts.js.hardcoded-credentials.secret-literal
const config = { host: "db", apiKey: "a8f5f167f44f4964e6c998dee827110c" };
// ruleid: bouts.js.hardcoded-credentials.secret-fallback
const JWT_SECRET = process.env.JWT_SECRET ?? "dev-secret-123";

export function login(username: string, password: string) {
  // ruleid: bouts.js.hardcoded-credentials.secret-literal
  if (username === "admin" && password === "hunter22") return true;
  return false;
}

export function issue(userId: string) {
  // ruleid: bouts.js.hardcoded-credentials.signing-key-literal
  return jwt.sign({ sub: userId }, "my-super-secret-key");
}

// ruleid: bouts.js.hardcoded-credentials.known-key-format
const AWS = "AKIAIOSFODNN7EXAMPLE";

// ok: bouts.js.hardcoded-credentials.secret-literal
const PASSWORD_FIELD = "password";
// ok: bouts.js.hardcoded-credentials.secret-literal
const ERR_BAD_PASSWORD = "Invalid password or username";
// ok: bouts.js.hardcoded-credentials.secret-literal
const apiKey = process.env.API_KEY;
// ok: bouts.js.hardcoded-credentials.secret-literal
const emptyPassword = "";
// ok: bouts.js.hardcoded-credentials.signing-key-literal
const signed = jwt.sign({ sub: "x" }, process.env.JWT_SECRET as string);

export {
  DB_PASSWORD,
  config,
  JWT_SECRET,
  AWS,
  PASSWORD_FIELD,
  ERR_BAD_PASSWORD,
  apiKey,
  emptyPassword,
  signed,
};
