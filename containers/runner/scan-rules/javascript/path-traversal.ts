import express from "express";
import fs from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

const app = express();
const ROOT = "/srv/files";

app.get("/files/:name", async (req, res) => {
  const file = path.join(ROOT, req.params.name);
  // ruleid: bouts.js.path-traversal.request-data-in-file-path
  const data = await readFile(file, "utf8");
  // ruleid: bouts.js.path-traversal.request-data-in-file-path
  fs.createReadStream(ROOT + "/" + req.query.path).pipe(res);
  // ruleid: bouts.js.path-traversal.request-data-in-file-path
  res.sendFile(path.resolve(ROOT, req.query.doc as string));
  res.send(data);
});

app.get("/safe/:name", async (req, res) => {
  // ok: bouts.js.path-traversal.request-data-in-file-path
  const one = await readFile(path.join(ROOT, path.basename(req.params.name)), "utf8");
  const target = path.resolve(ROOT, req.params.name);
  if (!target.startsWith(ROOT + path.sep)) {
    res.status(403).end();
    return;
  }
  // ok: bouts.js.path-traversal.request-data-in-file-path
  const two = await readFile(target, "utf8");
  // ok: bouts.js.path-traversal.request-data-in-file-path
  const three = fs.readFileSync(path.join(ROOT, "index.html"), "utf8");
  res.json({ one, two, three });
});
