/** Vite's `?raw` imports: the telemetry fixture traces, as text. */
declare module "*.jsonl?raw" {
  const text: string;
  export default text;
}
declare module "*.json?raw" {
  const text: string;
  export default text;
}
