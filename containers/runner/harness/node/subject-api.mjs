// `bouts:subject`: what a trusted test may import. Everything here runs in the trusted test
// process: probes are answered by the subject through the bridge and judged by the bridge, and
// shared files are read here from a private copy; nothing runs submission code in this process.
export { pollution, sharedPath, SubjectFault } from "./bridge.mjs";
export { databaseHolds, readSharedDatabase } from "./observe.mjs";
