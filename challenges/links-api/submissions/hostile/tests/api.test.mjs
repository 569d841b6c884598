import { test } from "node:test";
test("registers a user", () => {});
