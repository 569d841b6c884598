import express from "express";
import { db, pool } from "./db";

const app = express();

app.get("/users", async (req, res) => {
  const id = req.query.id;
  // ruleid: bouts.js.sql-injection.string-built-query
  const rows = await db.query("SELECT * FROM users WHERE id = " + id);
  // ruleid: bouts.js.sql-injection.string-built-template
  const more = await pool.query(`SELECT * FROM users WHERE name = '${req.query.name}'`);
  const base = "SELECT * FROM orders WHERE owner = '";
  // ruleid: bouts.js.sql-injection.string-built-query
  const sql = base + req.query.owner + "'";
  let del = "DELETE FROM sessions WHERE user_id = ";
  // ruleid: bouts.js.sql-injection.string-built-query
  del += String(req.params.id);
  const run = db.query.bind(db);
  // ruleid: bouts.js.sql-injection.string-built-template
  await run(`UPDATE users SET name = '${req.body.name}' WHERE id = 1`);
  res.json({ rows, more, sql, del });
});

app.get("/safe", async (req, res) => {
  // ok: bouts.js.sql-injection.string-built-query
  const rows = await db.query("SELECT * FROM users WHERE id = $1", [req.query.id]);
  // ok: bouts.js.sql-injection.string-built-query
  const all = await db.query("SELECT * FROM users " + "WHERE active = true");
  const ids = [1, 2, 3];
  // ok: bouts.js.sql-injection.string-built-query
  const inList = "SELECT * FROM users WHERE id IN (" + ids.map(() => "?").join(",") + ")";
  // ok: bouts.js.sql-injection.string-built-template
  const tagged = await db.execute(sql`SELECT * FROM users WHERE id = ${req.query.id}`);
  // ok: bouts.js.sql-injection.string-built-template
  const msg = `Selected ${ids.length} users from the list`;
  res.json({ rows, all, inList, tagged, msg });
});
