import type { ChallengeBrief, SourceFile } from "../src/index.ts";

export const CHALLENGE: ChallengeBrief = {
  id: "notes-api",
  title: "Notes API",
  summary: "A small HTTP service.",
};

export const CLEAN: SourceFile[] = [
  {
    path: "src/notes.ts",
    content: `import { z } from "zod";

// Notes are validated at the edge so the store only ever sees well-formed input.
const NoteSchema = z.object({ title: z.string().min(1), body: z.string() });

export async function createNote(store: Store, input: unknown): Promise<Note> {
  const parsed = NoteSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(parsed.error.message);
  try {
    return await store.insert(parsed.data);
  } catch (error) {
    throw new StorageError("could not save the note", { cause: error });
  }
}

export function listNotes(store: Store, limit: number): Promise<Note[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new ValidationError("limit must be a positive integer");
  return store.list(Math.min(limit, 100));
}
`,
  },
];

const messyBlock = `  var r = d.q("SELECT * FROM n WHERE id = " + x);
  if (r == null) { try { r = eval(x) } catch (e) {} }
  console.log(r);
  return r;`;

export const MESSY: SourceFile[] = [
  {
    path: "src/app.js",
    content: `function a(d, x) {
${messyBlock}
}
function b(d, x) {
${messyBlock}
}
function c(d, x: any) {
${messyBlock}
  // TODO fix this
  // FIXME later
}
`,
  },
];
