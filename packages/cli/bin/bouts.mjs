#!/usr/bin/env node
// The installed `bouts` command: loads the TypeScript entry through tsx's loader.
import process from "node:process";
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
