/** `npm run bouts -- …`: the CLI's entry as a script (the bin is bin/bouts.mjs). */
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
