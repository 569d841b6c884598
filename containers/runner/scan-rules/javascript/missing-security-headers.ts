import express from "express";
import helmet from "helmet";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";

// ok: bouts.js.missing-security-headers.express-without-helmet
const withHelmet = express();
withHelmet.use(helmet());

// ok: bouts.js.missing-security-headers.express-without-helmet
const manual = express();
manual.use((req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
});

// ruleid: bouts.js.missing-security-headers.express-without-helmet
const bare = express();
bare.get("/", (req, res) => res.send("hi"));

// ruleid: bouts.js.missing-security-headers.hono-without-secure-headers
const h1 = new Hono();
h1.get("/", (c) => c.text("hi"));

// ok: bouts.js.missing-security-headers.hono-without-secure-headers
const h2 = new Hono();
h2.use("*", secureHeaders());
export { bare, withHelmet, manual, h1, h2 };
