/**
 * What every workerd project's setup file (`test/apply-migrations.ts`) rests on, now that the
 * files of a project share a workerd (`isolate: false`): `reset()` of `cloudflare:test` leaves
 * nothing a file before could have written (D1 tables and rows, R2 objects, a Durable Object's
 * storage and its in-memory instance), and the migrations then give back the schema, empty.
 */
import { applyD1Migrations, reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const userTables = async () =>
  (
    await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'd1_migrations' ORDER BY name",
    ).all<{ name: string }>()
  ).results.map((r) => r.name);

describe("storage between test files", () => {
  it("is emptied by reset(): D1, R2, every Durable Object's storage and instance; the migrations rebuild the schema", async () => {
    // What an earlier file could leave behind in each store.
    await env.DB.prepare(
      "INSERT INTO operators (id, name, created_at) VALUES ('left-over', 'left over', 0)",
    ).run();
    await env.DB.prepare("CREATE TABLE left_over (x INTEGER)").run();
    await env.ARTIFACTS.put("left-over/bytes", "left over");
    const board = env.LEADERBOARD.getByName("left-over-challenge");
    await runInDurableObject(board, async (instance, state) => {
      await state.storage.put("left-over", 1);
      (instance as unknown as { marker: number }).marker = 1;
    });
    expect(await userTables()).toContain("left_over");

    await reset();

    expect(await userTables()).toEqual([]);
    expect((await env.ARTIFACTS.list()).objects).toEqual([]);
    await runInDurableObject(
      env.LEADERBOARD.getByName("left-over-challenge"),
      async (instance, state) => {
        // A new instance (no in-memory state) over empty storage. (`listDurableObjectIds` may
        // still list the id: no test here counts the objects of a namespace.)
        expect((instance as unknown as { marker?: number }).marker).toBeUndefined();
        expect(await state.storage.get("left-over")).toBeUndefined();
      },
    );

    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
    expect(await userTables()).toContain("operators");
    expect(await userTables()).not.toContain("left_over");
    const operators = await env.DB.prepare("SELECT count(*) AS n FROM operators").first<{
      n: number;
    }>();
    expect(operators?.n).toBe(0);
  });
});
