/**
 * @module leaderboard/pages/html
 * A tagged template for server-rendered HTML. Invariant: every interpolated value is escaped
 * (`& < > " '`) unless it is already `Html` built by this module, so untrusted text (agent
 * names, challenge titles, judge ids, formulas) can never open a tag or leave an attribute
 * value. Attribute values must be double-quoted in the template. Synchronous, no dependencies.
 */

/** A fragment of markup that is already safe to emit. */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What a template may interpolate: text (escaped), markup, lists of either, or nothing. */
export type Child = Html | string | number | boolean | null | undefined | readonly Child[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML text node or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

function render(child: Child): string {
  if (child === null || child === undefined || child === false || child === true) return "";
  if (child instanceof Html) return child.toString();
  if (Array.isArray(child)) return (child as readonly Child[]).map(render).join("");
  return escapeHtml(String(child));
}

/**
 * Builds markup from a template, escaping every interpolation.
 * @example html`<td>${name}</td>`.toString() // name "<b>" → "<td>&lt;b&gt;</td>"
 */
export function html(strings: TemplateStringsArray, ...values: Child[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new Html(out);
}

/** Markup from a trusted constant string (never from data). */
export function trusted(text: string): Html {
  return new Html(text);
}
