import express from "express";
import jwt from "jsonwebtoken";

const app = express();

app.get("/me", (req, res) => {
  const token = (req.headers.authorization ?? "").slice(7);
  // ruleid: bouts.js.auth-bypass.jwt-not-verified
  const claims = jwt.decode(token);
  res.json(claims);
});

app.get("/old", (req, res) => {
  const token = (req.headers.authorization ?? "").slice(7);
  // ruleid: bouts.js.auth-bypass.jwt-not-verified
  const claims = jwt.verify(token, process.env.KEY as string, { algorithms: ["HS256", "none"] });
  res.json(claims);
});

app.delete("/users/:id", (req, res) => {
  // ruleid: bouts.js.auth-bypass.client-controlled-authorization
  if (req.headers["x-admin"] === "true" || req.query.isAdmin) {
    res.sendStatus(204);
    return;
  }
  res.sendStatus(403);
});

app.get("/ok", (req, res) => {
  const token = (req.headers.authorization ?? "").slice(7);
  // ok: bouts.js.auth-bypass.jwt-not-verified
  const claims = jwt.verify(token, process.env.KEY as string, { algorithms: ["HS256"] });
  // ok: bouts.js.auth-bypass.client-controlled-authorization
  if (req.query.page) {
    res.json(claims);
  }
});
