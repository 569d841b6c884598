import express from "express";

const app = express();

app.post("/login", (req, res) => {
  // ruleid: bouts.js.verbose-logging.sensitive-data-logged
  console.log("login attempt", req.body);
  const { username, password } = req.body;
  // ruleid: bouts.js.verbose-logging.sensitive-data-logged
  console.debug(`user ${username} with ${password}`);
  // ruleid: bouts.js.verbose-logging.sensitive-data-logged
  console.log(req.headers);
  // ok: bouts.js.verbose-logging.sensitive-data-logged
  console.info("login attempt for", username);
  // ok: bouts.js.verbose-logging.sensitive-data-logged
  console.log(req.method, req.path);
  res.sendStatus(204);
});
