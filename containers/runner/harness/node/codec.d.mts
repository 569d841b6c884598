// Types for codec.mjs (the harness ships plain JavaScript; tests import it from TypeScript).
export interface GraphNode {
  k: string;
  [field: string]: unknown;
}
export interface Graph {
  roots: unknown[];
  nodes: GraphNode[];
}
export interface Reply {
  inputs: GraphNode[];
  nodes: GraphNode[];
  roots: unknown[];
}
export interface EncodeOptions {
  /** Objects of the request (object → request node index), encoded as `{"$in": i}`. */
  inputs?: Map<unknown, number>;
  /** Refuse functions with a TypeError naming where they were (bridge arguments). */
  refuseFunctions?: boolean;
  /** Names root `i` in error paths, e.g. `(i) => "argument " + (i + 1)`. */
  label?: (rootIndex: number) => string;
  /** Receives the object behind each node, in node order. */
  objects?: unknown[];
}
export const MAX_FRAME_BYTES: number;
export const MAX_NODES: number;
export const MAX_ITEMS: number;
export function encodeGraph(roots: readonly unknown[], options?: EncodeOptions): Graph;
export function encodeReply(requestObjects: readonly unknown[], result: unknown): Reply;
export function decodeGraph(
  graph: unknown,
  options?: { limits?: { nodes?: number; items?: number } },
): { roots: unknown[]; objects: unknown[] };
export function applyReply(reply: unknown, callerObjects: readonly unknown[]): unknown;
export function encodeError(error: unknown): Graph;
export function decodeError(graph: unknown): unknown;
export function writeFrameSync(fd: number, frame: unknown): void;
export function writeTrustedFrameSync(fd: number, frame: unknown): void;
