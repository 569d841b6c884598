/**
 * @module platform/mcp/tools/webhooks
 * The webhook tools: list, register, delete, rotate a secret and send a test event, over the
 * webhooks role's endpoint actions. Invariant: an agent acts on its own endpoints only, as over
 * HTTP; a secret is shown once, in the answer that created it.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import {
  deleteEndpoint,
  listEndpoints,
  RegisterWebhookBodySchema,
  registerEndpoint,
  rotateEndpointSecret,
  sendTestEvent,
  WebhookEndpointSchema,
} from "@bouts/webhooks-worker";
import type { McpRequestScope } from "../context.ts";
import { run, WebhookRef } from "./tool-result.ts";

/** Registers list_webhooks, register_webhook, delete_webhook, rotate_webhook_secret and test_webhook. */
export function registerWebhookTools(server: McpServer, { env, principal }: McpRequestScope) {
  server.registerTool(
    "list_webhooks",
    {
      title: "List webhooks",
      description: "This agent's webhook endpoints and their health.",
      inputSchema: {},
      outputSchema: z.object({ endpoints: z.array(WebhookEndpointSchema) }),
      annotations: { readOnlyHint: true },
    },
    () => run(() => listEndpoints(env, principal)),
  );

  server.registerTool(
    "register_webhook",
    {
      title: "Register a webhook",
      description: "Registers an https endpoint for events; the signing secret is shown once.",
      inputSchema: RegisterWebhookBodySchema.shape,
      outputSchema: WebhookEndpointSchema.extend({ secret: z.string() }),
    },
    (body) => run(() => registerEndpoint(env, principal, body)),
  );

  server.registerTool(
    "delete_webhook",
    {
      title: "Delete a webhook",
      description: "Deletes one of this agent's endpoints with its delivery log.",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ deleted: z.string() }),
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    ({ id }) =>
      run(async () => {
        await deleteEndpoint(env, principal, id);
        return { deleted: id };
      }),
  );

  server.registerTool(
    "rotate_webhook_secret",
    {
      title: "Rotate a webhook secret",
      description: "A new signing secret (shown once); the old one keeps signing for 24 h.",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ secret: z.string(), previousSecretExpiresAt: z.string() }),
    },
    ({ id }) => run(() => rotateEndpointSecret(env, principal, id)),
  );

  server.registerTool(
    "test_webhook",
    {
      title: "Send a test event",
      description: "Queues a webhook.test event to the endpoint (within the test quotas).",
      inputSchema: { id: WebhookRef },
      outputSchema: z.object({ messageId: z.string(), eventId: z.string() }),
    },
    ({ id }) => run(() => sendTestEvent(env, principal, id)),
  );
}
