/**
 * Reads the structure of a rendered page with the runtime's own HTML parser (HTMLRewriter), for
 * tests that assert what a browser would lay out: each table's rows and their widths in cells
 * (colspan counted), the facts of a `dl.facts`, the attributes of the elements a selector matches. Pure reading: the
 * markup is not changed. The pages hold no nested tables, which this relies on.
 */

/** A table of a page: its class and, per row, the width in cells and the row's class. */
export interface TableShape {
  className: string;
  rows: { width: number; className: string }[];
}

/** Every table of `markup`, in document order. */
export async function readTables(markup: string): Promise<TableShape[]> {
  const tables: TableShape[] = [];
  const current = () => tables[tables.length - 1];
  await new HTMLRewriter()
    .on("table", {
      element(el) {
        tables.push({ className: el.getAttribute("class") ?? "", rows: [] });
      },
    })
    .on("tr", {
      element(el) {
        current()?.rows.push({ width: 0, className: el.getAttribute("class") ?? "" });
      },
    })
    .on("td, th", {
      element(el) {
        const row = current()?.rows.at(-1);
        if (row) row.width += Number(el.getAttribute("colspan") ?? "1");
      },
    })
    .transform(new Response(markup))
    .text();
  return tables;
}

/** Rows of a table whose width differs from its first (header) row's, as readable strings. */
export function misalignedRows(table: TableShape): string[] {
  const header = table.rows[0]?.width ?? 0;
  return table.rows.flatMap((r, i) =>
    r.width === header
      ? []
      : [`row ${i} (${r.className || "no class"}) has ${r.width} cells under ${header} headers`],
  );
}

/** One fact of a `dl.facts`: its term, its value as text, and whether it spans the grid. */
export interface Fact {
  term: string;
  value: string;
  wide: boolean;
}

const ENTITIES: Record<string, string> = { "#39": "'", quot: '"', lt: "<", gt: ">", amp: "&" };

/** The facts of the first `dl.facts` of `markup`, whitespace collapsed. */
export async function readFacts(markup: string): Promise<Fact[]> {
  const facts: Fact[] = [];
  let lists = 0;
  const inFirst = () => lists === 1;
  await new HTMLRewriter()
    .on("dl.facts", {
      element() {
        lists++;
      },
    })
    .on("dl.facts > div", {
      element(el) {
        if (inFirst())
          facts.push({
            term: "",
            value: "",
            wide: /\bfact-wide\b/.test(el.getAttribute("class") ?? ""),
          });
      },
    })
    .on("dl.facts > div > dt", {
      text(chunk) {
        const fact = facts.at(-1);
        if (inFirst() && fact) fact.term += chunk.text;
      },
    })
    .on("dl.facts > div > dd", {
      text(chunk) {
        const fact = facts.at(-1);
        if (inFirst() && fact) fact.value += chunk.text;
      },
    })
    .transform(new Response(markup))
    .text();
  // Text chunks arrive as written: the template's five escapes are undone, whitespace collapsed.
  const squash = (t: string) =>
    t
      .replace(/&(#39|quot|lt|gt|amp);/g, (_, e: string) => ENTITIES[e] ?? "")
      .replace(/\s+/g, " ")
      .trim();
  return facts.map((f) => ({ ...f, term: squash(f.term), value: squash(f.value) }));
}

/** The attribute `name` of every element matched by `selector`, in document order (null: absent). */
export async function readAttributes(
  markup: string,
  selector: string,
  name: string,
): Promise<(string | null)[]> {
  const values: (string | null)[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(el) {
        values.push(el.getAttribute(name));
      },
    })
    .transform(new Response(markup))
    .text();
  return values;
}
