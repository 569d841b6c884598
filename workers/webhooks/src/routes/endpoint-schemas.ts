/**
 * @module webhooks-worker/routes/endpoint-schemas
 * The wire shapes of the webhook endpoint routes: path ids, the registration body (a target URL
 * of RFC 3986 characters only, refused as input otherwise), an endpoint, a delivery and its
 * attempts; and `endpointToWire`. Invariant: an endpoint on the wire never carries a secret,
 * only when its previous one stops signing.
 */
import { z } from "@hono/zod-openapi";
import { SUBSCRIBABLE_EVENT_TYPES } from "@bouts/contracts";
import type { StoredWebhookSecret, WebhookEndpointRow } from "@bouts/db";
import { MAX_TARGET_URL_LENGTH, METADATA_HOSTS, SPECIAL_USE_TLDS } from "@bouts/webhooks";

export const EndpointId = z
  .string()
  .regex(/^wh_[A-Za-z0-9_-]{1,64}$/)
  .openapi({ param: { name: "id", in: "path" }, example: "wh_3q2Yp" });
export const MessageId = z
  .string()
  .regex(/^msg_[A-Za-z0-9_-]{1,64}$/)
  .openapi({ param: { name: "messageId", in: "path" }, example: "msg_3q2Yp" });

/** RFC 3986 path, query and fragment: `#` only once, and only what each part may hold. */
const PCHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
const URI_TAIL = `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;

/**
 * The production target rule as a pattern, for the document: https, a public DNS name (labels
 * of letters, digits and hyphens, a letter TLD that is not special-use, not a metadata host),
 * port 443 if any, no credentials, only RFC 3986 characters. The route checks the whole rule
 * set itself (`validateTargetUrl`, which also admits public IP literals, and loopback in local
 * development only): a URL that breaks a rule is 422 `invalid-target` naming it.
 */
export const TARGET_URL_PATTERN =
  // A DNS name is at most 253 characters.
  "^https://(?=[^/?#:]{1,253}(?:[:/?#]|$))" +
  `(?!(?:${METADATA_HOSTS.map((h) => h.replaceAll(".", "\\.")).join("|")})(?:[:/?#]|$))` +
  "(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+" +
  `(?!(?:${[...SPECIAL_USE_TLDS, "localhost"].join("|")})(?:[:/?#]|$))[a-z]{2,63}(?::443)?` +
  `${URI_TAIL}$`;

/**
 * A URI's characters (RFC 3986: unreserved and reserved characters, well-formed escapes,
 * brackets only around an IPv6 host). The WHATWG parser would accept and escape `|`, `{`, `"`,
 * a stray `%` and the like; a target that is not a URI in the document's sense is refused as
 * input (400), not rewritten.
 */
const URI_CHARACTERS = new RegExp(
  "^[A-Za-z][A-Za-z0-9+.-]*://(?:[A-Za-z0-9._~!$&'()*+,;=:%-]*@)?" +
    `(?:\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(?::[0-9]*)?${URI_TAIL}$`,
);

/** The body of a webhook registration. */
export const RegisterBody = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .max(MAX_TARGET_URL_LENGTH)
      .regex(URI_CHARACTERS, "only the characters RFC 3986 allows in a URI")
      .openapi({
        format: "uri",
        pattern: TARGET_URL_PATTERN,
        example: "https://hooks.example.org/bouts",
        description:
          "Where events are POSTed: https on port 443, a public DNS name or address, no " +
          "credentials, at most 2048 characters (docs/webhooks.md). Private, loopback, " +
          "link-local, metadata and special-use targets are refused with 422 `invalid-target`.",
      }),
    eventTypes: z
      .array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
      .min(1)
      .refine((t) => new Set(t).size === t.length, "event types must be unique")
      .openapi({ uniqueItems: true }),
  })
  .openapi("RegisterWebhookBody");

/** A webhook endpoint as the API shows it (never its secrets). */
export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    enabled: z.boolean(),
    disabled: z.object({ at: z.iso.datetime(), reason: z.string() }).nullable(),
    health: z.object({
      consecutiveFailures: z.int(),
      failingSince: z.iso.datetime().nullable(),
      lastSuccessAt: z.iso.datetime().nullable(),
    }),
    /** While a rotation overlap lasts: when the previous secret stops signing. */
    previousSecretExpiresAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi("WebhookEndpoint");

const Attempt = z.object({
  attempt: z.int(),
  at: z.iso.datetime(),
  outcome: z.string(),
  reason: z.string().nullable(),
  status: z.int().nullable(),
  latencyMs: z.int(),
  response: z.string().nullable(),
  responseTruncated: z.boolean(),
});
export const Delivery = z
  .object({
    messageId: z.string(),
    eventId: z.string(),
    type: z.string(),
    status: z.string(),
    createdAt: z.iso.datetime(),
    attempts: z.array(Attempt),
  })
  .openapi("WebhookDelivery");

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function endpointToWire(row: WebhookEndpointRow, now: number): z.infer<typeof Endpoint> {
  const secrets = JSON.parse(row.secrets) as StoredWebhookSecret[];
  const overlap = secrets
    .map((s) => s.expiresAt)
    .filter((at): at is number => at !== null && at > now);
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.eventTypes) as string[],
    enabled: row.disabledAt === null,
    disabled:
      row.disabledAt === null
        ? null
        : { at: new Date(row.disabledAt).toISOString(), reason: row.disabledReason ?? "" },
    health: {
      consecutiveFailures: row.consecutiveFailures,
      failingSince: iso(row.failingSince),
      lastSuccessAt: iso(row.lastSuccessAt),
    },
    previousSecretExpiresAt: overlap.length ? iso(Math.max(...overlap)) : null,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
