// node:test reporter: forwards each test's outcome to the host channel (fd 3) with the file it
// was declared in, so a test registered by submission code cannot stand in for a hidden one.
// Ends with an "end" record; a process that exits before it did not finish its test.
import { emit } from "./channel.mjs";

export default async function* reporter(source) {
  for await (const ev of source) {
    if (ev.type !== "test:pass" && ev.type !== "test:fail") continue;
    const d = ev.data;
    if (d.details?.type === "suite") continue;
    const error = d.details?.error;
    const status =
      ev.type === "test:pass" && !d.skip && !d.todo
        ? "passed"
        : error?.failureType === "testTimeoutFailure"
          ? "timeout"
          : "failed";
    const message =
      status === "passed"
        ? ""
        : d.skip
          ? "test was skipped"
          : d.todo
            ? "test is marked todo"
            : String(error?.cause?.message ?? error?.message ?? "failed").slice(0, 1000);
    emit({
      k: "result",
      name: d.name,
      file: d.file ?? null,
      nesting: d.nesting,
      status,
      durationMs: d.details?.duration_ms ?? 0,
      message,
    });
  }
  emit({ k: "end" });
  yield "";
}
