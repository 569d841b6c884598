/**
 * @module runner/scan/eslint
 * ESLint with eslint-plugin-security and the TypeScript parser, driven through the Node API.
 * Invariants: the submission's ESLint configs and inline comments (eslint-disable, /* eslint *\/)
 * have no effect (no config lookup, inline config off); only the curated rules below run, each
 * mapped to a CWE in the engineering spec's table; a file ESLint cannot parse is a skip with the
 * reason; an exception from ESLint makes the run "failed". Our own rule (url-specifiers.ts)
 * reports module specifiers with a URL scheme other than node:/file: as unscanned code.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import tsParser from "@typescript-eslint/parser";
import { ESLint } from "eslint";
import security from "eslint-plugin-security";
import type { RawFinding, ToolOutcome, UnscannedCode } from "./tool.ts";
import { URL_SPECIFIER_RULE, urlSpecifierRule } from "./url-specifiers.ts";
import type { ScanTarget } from "./targets.ts";

/**
 * The eslint-plugin-security rules we run and the CWE each reports. Left out on purpose:
 * detect-object-injection and detect-non-literal-fs-filename (they flag most dynamic property
 * and path use, and a false high/critical finding would decide ranks), and rules whose class
 * the engineering spec does not score (eval, ReDoS, timing attacks, Buffer APIs).
 */
export const ESLINT_RULE_CWE: Readonly<Record<string, string>> = {
  "security/detect-child-process": "CWE-78",
  "security/detect-pseudoRandomBytes": "CWE-338",
  "security/detect-disable-mustache-escape": "CWE-79",
  "security/detect-no-csrf-before-method-override": "CWE-352",
};

/** detect-child-process also reports a bare require("child_process"): not a vulnerability. */
const IGNORED_MESSAGES = [/^Found require\("child_process"\)$/];

export interface EslintOptions {
  scratchDir: string;
  targets: readonly ScanTarget[];
  signal: AbortSignal;
}

/** Lints the JS/TS targets' scratch copies with the security rules only. */
export async function runEslint(options: EslintOptions): Promise<ToolOutcome> {
  const version = `${ESLint.version} (eslint-plugin-security ${security.meta.version})`;
  const jsTargets = options.targets.filter((t) => t.language !== "python");
  try {
    const eslint = new ESLint({
      cwd: options.scratchDir,
      overrideConfigFile: true,
      allowInlineConfig: false,
      ignore: false,
      overrideConfig: [
        {
          files: ["**/*.{js,cjs,mjs,jsx,ts,cts,mts,tsx}"],
          languageOptions: {
            parser: tsParser,
            ecmaVersion: "latest",
            sourceType: "module",
            parserOptions: { ecmaFeatures: { jsx: true } },
          },
          linterOptions: { reportUnusedDisableDirectives: "off" },
          plugins: { security, bouts: { rules: { "url-module-specifier": urlSpecifierRule } } },
          rules: {
            ...Object.fromEntries(Object.keys(ESLINT_RULE_CWE).map((r) => [r, "error"])),
            [URL_SPECIFIER_RULE]: "error",
          },
        },
      ],
    });
    const findings: RawFinding[] = [];
    const unscanned: UnscannedCode[] = [];
    const skipped: ToolOutcome["skipped"] = [];
    let stopped = false;
    for (const [i, t] of jsTargets.entries()) {
      if (options.signal.aborted) {
        stopped = true;
        for (const rest of jsTargets.slice(i)) {
          skipped.push({ scratchPath: rest.scratchPath, reason: "eslint: scan time ran out" });
        }
        break;
      }
      const filePath = path.join(options.scratchDir, t.scratchPath);
      const text = await readFile(filePath, "utf8");
      const [result] = await eslint.lintText(text, { filePath });
      for (const m of result?.messages ?? []) {
        if (m.fatal) {
          skipped.push({
            scratchPath: t.scratchPath,
            reason: `eslint could not parse this file (line ${m.line}: ${m.message.slice(0, 200)})`,
          });
          continue;
        }
        if (m.ruleId === URL_SPECIFIER_RULE) {
          unscanned.push({ scratchPath: t.scratchPath, line: m.line, source: m.message });
          continue;
        }
        const cwe = m.ruleId ? ESLINT_RULE_CWE[m.ruleId] : undefined;
        if (!m.ruleId || !cwe || IGNORED_MESSAGES.some((re) => re.test(m.message))) continue;
        findings.push({
          tool: "eslint",
          rule: m.ruleId,
          cwe,
          scratchPath: t.scratchPath,
          line: m.line,
          message: m.message,
        });
      }
    }
    return {
      run: {
        tool: "eslint",
        version,
        status: "ok",
        detail: `${jsTargets.length} JS/TS files, rules: ${[...Object.keys(ESLINT_RULE_CWE), URL_SPECIFIER_RULE].join(", ")}`,
      },
      findings,
      skipped,
      unscanned,
      stopped,
    };
  } catch (e) {
    return {
      run: {
        tool: "eslint",
        version,
        status: "failed",
        detail: `eslint crashed: ${(e as Error).message}`.slice(0, 2000),
      },
      findings: [],
      skipped: [],
    };
  }
}
