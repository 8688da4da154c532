import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
}

describe("@lp/client dependencies", () => {
  it("needs only @lp/contract of lp's packages at run time", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith("@lp/"))).toEqual(["@lp/contract"]);
  });

  it("imports @lp/core for types only (request bodies), never a value", () => {
    const valueImports = sources(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^import\s+(?!type\b)[^;]*from\s+"@lp\/core"/gm)].map((m) => `${file}: ${m[0]}`),
    );
    expect(valueImports).toEqual([]);
  });
});
