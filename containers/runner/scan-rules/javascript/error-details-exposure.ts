import express from "express";
import type { NextFunction, Request, Response } from "express";

const app = express();

app.get("/items", async (req, res) => {
  try {
    res.json(await loadItems());
  } catch (err) {
    // ruleid: bouts.js.error-details-exposure.error-in-response
    res.status(500).json({ error: err.message, stack: err.stack });
  }
});

app.get("/other", async (req, res) => {
  try {
    res.json(await loadItems());
  } catch (e) {
    // ruleid: bouts.js.error-details-exposure.error-in-response
    res.status(500).send(e);
  }
});

app.use((err: Error, req: Request, res: Response, next: NextFunction) => {
  // ruleid: bouts.js.error-details-exposure.error-in-response
  res.status(500).json({ error: err });
  next();
});

app.get("/safe", async (req, res) => {
  try {
    res.json(await loadItems());
  } catch (err) {
    console.error(err);
    // ok: bouts.js.error-details-exposure.error-in-response
    res.status(500).json({ error: "internal error" });
  }
});

app.get("/validation", async (req, res) => {
  try {
    res.json(await loadItems());
  } catch (err) {
    // ok: bouts.js.error-details-exposure.error-in-response
    res.status(400).json({ error: err.message });
  }
});

async function loadItems(): Promise<string[]> {
  return [];
}
