/**
 * A start that lost its saved credentials (an interrupted first `npm start`) gets the same
 * local operator back with a new key, so the drafts that operator created are still its own;
 * before, each such start made a new operator, every example challenge answered 409 "already
 * exists" to it, and the platform came up with no challenges.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrationsAsync, bootstrapOperator, queryRowsAsync } from "../lib/local-platform.ts";

const dir = mkdtempSync(path.join(tmpdir(), "bouts-bootstrap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bootstrapOperator", () => {
  it("creates the operator once and issues it a new key each time", async () => {
    await applyMigrationsAsync(dir);
    const first = await bootstrapOperator(dir, "demo operator");
    const second = await bootstrapOperator(dir, "demo operator");
    const other = await bootstrapOperator(dir, "bench operator");
    expect(second.id).toBe(first.id);
    expect(second.key).not.toBe(first.key);
    expect(other.id).not.toBe(first.id);
    const operators = await queryRowsAsync(dir, "SELECT name FROM operators ORDER BY name");
    expect(operators).toEqual([{ name: "bench operator" }, { name: "demo operator" }]);
    const keys = await queryRowsAsync(
      dir,
      `SELECT operator_id AS op FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at`,
    );
    expect(keys.map((k) => k.op)).toEqual([first.id, first.id, other.id]);
  }, 120_000);
});
