import { COLOR_PATTERN } from "@lp/core";
import { beforeAll, describe, expect, it } from "vitest";
import { amountPattern } from "../../core/src/generation/content-check.js";
import { claimPatterns, currencyCodePattern } from "../../core/src/generation/content-rule.js";
import { tonePatterns } from "../../core/src/generation/marketing-angle.js";
import { FONT_STACK_PATTERN } from "../../core/src/render/theme.js";
import { apiRoutes, toRouteRegex } from "./app.js";
import { documentPatterns, findUnsafe, requestPathFiles, scanSources, type SweptRegex } from "./testing/regex-sweep.js";
import { createTestApp } from "./testing/test-app.js";

const asSwept = (where: string) => (regex: RegExp | string): SweptRegex =>
  typeof regex === "string" ? { source: regex, flags: "", where } : { source: regex.source, flags: regex.flags, where };

/**
 * Every place in the request path that builds a pattern at run time, how many it has, and the patterns
 * it builds (or samples of them, when they depend on data). A new `new RegExp(...)` fails the sweep until
 * it is listed here with what it builds, so no pattern escapes recheck by being built from a string.
 */
const CONSTRUCTED: Record<string, { count: number; patterns: () => SweptRegex[] }> = {
  "core/src/render/color.ts": { count: 1, patterns: () => [COLOR_PATTERN].map(asSwept("COLOR_PATTERN")) },
  "core/src/render/theme.ts": {
    count: 3,
    patterns: () => [asSwept("COLOR_PATTERN")(COLOR_PATTERN), { source: FONT_STACK_PATTERN, flags: "u", where: "FONT_STACK_PATTERN" }],
  },
  "core/src/generation/content-rule.ts": {
    count: 4,
    patterns: () => [...Object.values(claimPatterns).flat(), currencyCodePattern("EUR")!].map(asSwept("content-rule claim and currency patterns")),
  },
  "core/src/generation/content-check.ts": {
    count: 1,
    patterns: () => ["$1,065.00", "1 065,00 €", "1.065,00\u00a0€", "CHF 1’065.00", "¥1065", "10%"].map((amount) => asSwept(`amountPattern(${amount})`)(amountPattern(amount))),
  },
  "core/src/generation/marketing-angle.ts": { count: 1, patterns: () => tonePatterns.flatMap(([, patterns]) => patterns).map(asSwept("tonePatterns")) },
  "server/src/app.ts": {
    count: 1,
    patterns: () =>
      apiRoutes({ settings: { simulate: false, adminKey: "sweep", publicUrl: () => "http://127.0.0.1" } }).map((route) => asSwept(`route ${route.path}`)(toRouteRegex(route.path))),
  },
};

/** Issue-style lines for a failure message: where, what, and the attack recheck found. */
const describeUnsafe = (list: Awaited<ReturnType<typeof findUnsafe>>) =>
  list.map((u) => `${u.where}: /${u.source.slice(0, 120)}/${u.flags} is ${u.status} (${u.complexity})${u.attack ? `, attack ${u.attack.slice(0, 80)}` : ""}`).join("\n");

describe("every pattern that sees client input is linear (recheck)", () => {
  let documentRegexes: SweptRegex[];
  beforeAll(async () => {
    const t = await createTestApp();
    documentRegexes = documentPatterns((await t.call("GET", "/v1/openapi.json", { token: null })).json);
    await t.close();
  });

  it("finds the sweep's own bad example: a quadratic number pattern, in a document and in source", async () => {
    // The multipart number pattern as it once was: `\d+\.?\d*` splits one run of digits in every way.
    const quadratic = "^\\s*-?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?\\s*$";
    const fromDocument = documentPatterns({ components: { schemas: { Price: { type: "string", pattern: quadratic } } } });
    expect(fromDocument).toEqual([{ source: quadratic, flags: "u", where: "#/components/schemas/Price/pattern" }]);
    const unsafe = await findUnsafe([...fromDocument, { source: "^(a+)+$", flags: "", where: "exponential" }, { source: "^\\d+(?:\\.\\d*)?$", flags: "", where: "fixed" }]);
    expect(unsafe.map((u) => [u.where, u.status, u.complexity])).toEqual([
      ["#/components/schemas/Price/pattern", "vulnerable", "polynomial"],
      ["exponential", "vulnerable", "exponential"],
    ]);
    expect(unsafe[0]!.attack).toBeTruthy();
  }, 120_000);

  it("every pattern of the OpenAPI document", async () => {
    expect(documentRegexes.length).toBeGreaterThan(10);
    expect(documentRegexes.map((r) => r.source)).toContain(new RegExp(COLOR_PATTERN).source);
    const unsafe = await findUnsafe(documentRegexes);
    expect(unsafe, describeUnsafe(unsafe)).toEqual([]);
  }, 300_000);

  it("every regular-expression literal in the server, the core and the contract", async () => {
    const { literals } = scanSources(requestPathFiles());
    expect(literals.length).toBeGreaterThan(100);
    const unsafe = await findUnsafe(literals);
    expect(unsafe, describeUnsafe(unsafe)).toEqual([]);
  }, 300_000);

  it("every pattern built at run time, each place listed with what it builds", async () => {
    const { constructed } = scanSources(requestPathFiles());
    const counts: Record<string, number> = {};
    for (const site of constructed) {
      const file = site.slice(0, site.lastIndexOf(":"));
      counts[file] = (counts[file] ?? 0) + 1;
    }
    expect(counts, `places that build a RegExp: ${constructed.join(", ")}`).toEqual(Object.fromEntries(Object.entries(CONSTRUCTED).map(([file, { count }]) => [file, count])));
    const built = Object.values(CONSTRUCTED).flatMap(({ patterns }) => patterns());
    expect(built.length).toBeGreaterThan(60);
    const unsafe = await findUnsafe(built);
    expect(unsafe, describeUnsafe(unsafe)).toEqual([]);
  }, 300_000);
});
