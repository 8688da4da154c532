import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as webhooks from "@lp/webhooks";
import { transformSync } from "esbuild";
import * as vitest from "vitest";
import { describe, expect, it } from "vitest";
import * as testing from "../testing.js";

/**
 * The examples of docs/testing.md's "Time, missed events, and the calls your code made", run as written:
 * each fenced block that starts with `// <name>.test.ts` is compiled (esbuild: types stripped, `await using`
 * lowered for Node 22) and evaluated with its imports given the real modules; the tests it declares run here.
 */
const DOC = fileURLToPath(new URL("../../../docs/testing.md", import.meta.url));
const SECTION = "## Time, missed events, and the calls your code made";

function examples(): { file: string; code: string }[] {
  const text = readFileSync(DOC, "utf8");
  const start = text.indexOf(SECTION);
  if (start === -1) throw new Error(`docs/testing.md has no section "${SECTION}"`);
  const end = text.indexOf("\n## ", start + SECTION.length);
  const section = text.slice(start, end === -1 ? undefined : end);
  const out: { file: string; code: string }[] = [];
  for (const block of section.split("```ts\n").slice(1)) {
    const code = block.slice(0, block.indexOf("```"));
    const file = /^\/\/ (\S+\.test\.ts)\n/.exec(code)?.[1];
    if (file) out.push({ file, code });
  }
  return out;
}

/** What an example may import, by specifier: the modules a user's suite would import. */
const MODULES: Record<string, unknown> = { "@lp/cli/testing": testing, "@lp/webhooks": webhooks, vitest: null };

/** Evaluates one example and returns the tests it declared. */
function declaredTests(code: string): { name: string; fn: () => Promise<void> }[] {
  const declared: { name: string; fn: () => Promise<void> }[] = [];
  const asVitest = { ...vitest, test: (name: string, fn: () => Promise<void>) => void declared.push({ name, fn }) };
  const compiled = transformSync(code, { loader: "ts", format: "cjs", target: "node22" }).code;
  const require = (specifier: string) => {
    if (!(specifier in MODULES)) throw new Error(`the example imports ${specifier}, which this runner does not provide`);
    return specifier === "vitest" ? asVitest : MODULES[specifier];
  };
  new Function("require", "module", "exports", compiled)(require, { exports: {} }, {});
  return declared;
}

const found = examples();

describe("docs/testing.md examples, as written", () => {
  it("has the three examples: a retry on the clock, a late endpoint replayed, the calls the code made", () => {
    expect(found.map((e) => e.file)).toEqual(["retries.test.ts", "late-endpoint.test.ts", "calls.test.ts"]);
  });
  for (const example of found) {
    for (const test of declaredTests(example.code)) it(`${example.file}: ${test.name}`, test.fn);
  }
});
