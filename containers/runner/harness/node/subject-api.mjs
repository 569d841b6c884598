// `bouts:subject`: the probes a trusted test may import. Everything here is answered by the
// subject through the bridge; nothing runs submission code in the test process.
export { pollution, SubjectFault } from "./bridge.mjs";
