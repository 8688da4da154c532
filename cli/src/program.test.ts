import { describe, expect, it } from "vitest";
import { main } from "./main.js";
import { targetOf } from "./program.js";
import { createFakeIo } from "./testing/fake-io.js";

async function lp(args: string[]) {
  const fake = createFakeIo();
  const code = await main(args, fake.io);
  return { code, stdout: fake.stdout, stderr: fake.stderr };
}

describe("program", () => {
  it("finds the command being run past global flags and their values", () => {
    expect(targetOf(["--api-url", "http://x", "--json", "products", "list"])).toBe("products");
    expect(targetOf(["--profile=ci", "pages"])).toBe("pages");
    expect(targetOf(["help", "webhooks"])).toBe("webhooks");
    expect(targetOf(["--version"])).toBeUndefined();
  });

  it("lists every command in the help, exit 0, on stdout", async () => {
    const help = await lp(["--help"]);
    expect(help.code).toBe(0);
    for (const name of ["products", "pages", "jobs", "deployments", "webhooks", "admin", "config", "serve", "listen", "check-receiver", "conformance", "api", "completion"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
    expect((await lp([])).stdout).toBe(help.stdout);
    expect((await lp(["help", "products"])).stdout).toContain("create [options]");
    expect((await lp(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+|0\.0\.0-dev\n$/);
  });

  it("prints one Examples block per command, each example once, the command's own first", async () => {
    for (const name of ["products", "pages", "jobs", "deployments", "webhooks", "admin", "config", "serve", "doctor", "dashboard", "listen", "check-receiver", "trigger", "api", "completion"]) {
      const help = await lp([name, "--help"]);
      expect(help.code, name).toBe(0);
      expect(help.stdout.match(/^Examples:$/gm)?.length ?? 0, name).toBeLessThanOrEqual(1);
      const lines = help.stdout.split("\n").filter((line) => line.startsWith("  $ "));
      expect(lines, name).toEqual([...new Set(lines)]);
    }
    const dashboard = (await lp(["dashboard", "--help"])).stdout;
    expect(dashboard.slice(dashboard.indexOf("Examples:"))).toBe("Examples:\n  $ lp dashboard\n  $ lp dashboard --open\n  $ lp dashboard --api-url http://127.0.0.1:4011\n\n");
    expect((await lp(["doctor", "--help"])).stdout).toMatch(/^Examples:\n {2}\$ lp doctor --data-dir \.lp\n {2}\$ lp doctor --data-dir \.lp --fix\n/m);
    expect((await lp(["products", "--help"])).stdout).toMatch(/^Examples:\n {2}\$ lp products list --type service\n$/m);
  });

  it("exits 2 for unknown commands, unknown flags, missing arguments and a noun without a verb", async () => {
    for (const args of [["frob"], ["products", "list", "--frob"], ["products", "get"], ["products"], ["jobs", "get", "a", "b"]]) {
      const result = await lp(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout, args.join(" ")).toBe("");
    }
  });
});
