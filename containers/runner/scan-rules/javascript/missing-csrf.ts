import express from "express";
import session from "express-session";
import { doubleCsrf } from "csrf-csrf";

// ruleid: bouts.js.missing-csrf.cookie-session-without-csrf
const app = express();
app.use(session({ secret: process.env.SESSION_SECRET ?? "", resave: false }));
app.post("/transfer", (req, res) => res.send("ok"));

// ok: bouts.js.missing-csrf.cookie-session-without-csrf
const protectedApp = express();
const { doubleCsrfProtection } = doubleCsrf({ getSecret: () => "" });
protectedApp.use(session({ secret: process.env.SESSION_SECRET ?? "", resave: false }));
protectedApp.use(doubleCsrfProtection);
protectedApp.post("/transfer", (req, res) => res.send("ok"));

// ok: bouts.js.missing-csrf.cookie-session-without-csrf
const api = express();
api.use(express.json());
api.post("/items", (req, res) => res.json(req.body));
export { app, protectedApp, api };
