/**
 * @module cli
 * The `bouts` command as a library: `main(argv)` and its parts (packing a folder, the
 * configuration, the terminal renderings, the cleaning of API text), for tests and for scripts
 * that embed it.
 */
export { loadConfig, configPath, DEFAULT_API_URL, type CliConfig } from "./config.ts";
export { main, refuseKeyArguments, UsageError, type CliIo } from "./main.ts";
export { listSubmissionFiles, packFolder, VCS_DIRS } from "./pack.ts";
export {
  formatDuration,
  renderBoardMessage,
  renderBreakdown,
  renderFinalChoices,
  renderHistory,
  renderLeaderboard,
  renderProblem,
  renderStatus,
  renderSubmissions,
  renderWebhookCreated,
  renderWebhooks,
  type LeaderboardContext,
} from "./render.ts";
export { cleanField, stripTerminalControls } from "./terminal-text.ts";
