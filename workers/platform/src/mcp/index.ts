/**
 * @module platform/mcp
 * The platform Worker's MCP room: `POST /mcp` (route.ts) and the server it runs per request
 * (server.ts: tools/*.ts, resources.ts). The one entry the app mounts; design.md §24.
 */
export { createMcpRoutes } from "./route.ts";
