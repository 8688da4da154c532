import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, createProject, exec, packAll, readmeAllowScripts, repoRoot, start, type Packed } from "./project.js";

/**
 * The release rehearsal: every published package is packed, the tarballs are installed into an empty
 * project outside the repository, and there lp is used as the README's "Use it in your project" says.
 */
const templates = join(repoRoot, "test/release/project-files");
let packs: string;
let packed: Record<string, Packed>;
let dir: string;
let install: string;
const lp = () => join(dir, "node_modules/.bin/lp");

beforeAll(async () => {
  assertBuilt();
  packs = mkdtempSync(join(tmpdir(), "lp-tarballs-"));
  packed = await packAll(packs);
  ({ dir, install } = await createProject(packed));
  for (const name of ["lp.test.ts", "check.ts", "require.cjs"]) copyFileSync(join(templates, `${name}.tmpl`), join(dir, name));
}, 240_000);

afterAll(() => {
  for (const path of [dir, packs]) if (path) rmSync(path, { recursive: true, force: true });
});

describe("release rehearsal (packed tarballs in an empty project)", () => {
  it("ships built code, declarations and the CLI's assets, never sources, tests or source maps", () => {
    expect(Object.keys(packed).sort()).toEqual(["@lp/cli", "@lp/client", "@lp/contract", "@lp/webhooks"]);
    for (const [name, { files }] of Object.entries(packed)) {
      expect(files, name).toEqual(expect.arrayContaining(["package.json", "LICENSE", "README.md"]));
      expect(files.filter((f) => /(^|\/)src\/|\.test\.|\.map$|(?<!\.d)\.ts$/.test(f)), name).toEqual([]);
    }
    expect(packed["@lp/cli"]!.files).toEqual(expect.arrayContaining(["dist/fixtures/trigger.json", "dist/fixtures/products.json", "dist/fixtures/images/apron.png", "dist/dashboard-ui/manifest.json", "dist/testing.d.ts"]));
  });

  it("installs with the README's allowScripts: every install script it allows (none today), and those packages load on this Node", async () => {
    const allowed = readmeAllowScripts();
    const { packages } = JSON.parse(readFileSync(join(dir, "node_modules/.package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.keys(packages).filter((path) => packages[path]!.hasInstallScript);
    const nameOf = (path: string) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    expect(withScripts.filter((path) => allowed[nameOf(path)] !== true), install).toEqual([]);
    expect(install).not.toContain("not yet covered by allowScripts");
    // Nothing compiled: the embedded store is node:sqlite, and no other package needs a compiler.
    expect(install).not.toMatch(/gyp (info|ERR)/);
    // Each loads in the project on this Node.
    const args = withScripts.map((path) => join(dir, path));
    const loaded = await exec(dir, process.execPath, ["-e", "for (const folder of process.argv.slice(1)) require(folder);", ...args]);
    expect(loaded, `${process.version}: ${args.join(" ")}`).toMatchObject({ code: 0, stderr: "" });
  });

  it("lp --version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "cli/package.json"), "utf8")) as { version: string };
    const result = await exec(dir, lp(), ["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("lp serve answers 200, seeds from the shipped fixtures and serves the dashboard", async () => {
    const serve = start(dir, lp(), ["serve", "--port", "0", "--storage", "memory", "--seed", "--write-env", ".lp.env", "--quiet"]);
    try {
      const [, url] = await serve.waitFor(/Ready at (http:\/\/\S+)/);
      const env = Object.fromEntries(readFileSync(join(dir, ".lp.env"), "utf8").trim().split("\n").map((line) => line.split(/=(.*)/s).slice(0, 2)));
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const products = (await (await fetch(`${url}/v1/accounts/${env.LP_ACCOUNT}/products`, { headers: { authorization: `Bearer ${env.LP_TOKEN}` } })).json()) as { data: Array<{ title: string }> };
      const fixture = JSON.parse(readFileSync(join(repoRoot, "fixtures/products.json"), "utf8")) as Array<{ title: string }>;
      expect(products.data.map((p) => p.title).sort()).toEqual(fixture.map((p) => p.title).sort());
      // The dashboard's UI ships in the package: log in with the printed one-time URL, then load the page's script.
      const [, loginUrl] = /dashboard: (\S+)/.exec(serve.stderr)!;
      const cookie = (await fetch(loginUrl!, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!;
      const page = await (await fetch(`${url}/_dashboard/`, { headers: { cookie } })).text();
      const [, script] = /src="(\/_dashboard\/assets\/[^"]+\.js)"/.exec(page)!;
      expect((await fetch(`${url}${script}`)).status).toBe(200);
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
  }, 60_000);

  it("runs the README's CI step as written: serve, listen --expect with trigger, then the project's vitest suite on startLp()", async () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const block = /```yaml\n- run: npm ci\n- run: \|\n((?: {4}.*\n)+)```/.exec(readme);
    expect(block, "the README's CI example").not.toBeNull();
    const script = block![1]!.replace(/^ {4}/gm, "");
    // Its own process group: the server it leaves running in the background is stopped with it.
    const step = start(dir, "bash", ["-ec", script], {}, true);
    try {
      expect(await step.exited, step.stdout + step.stderr).toBe(0);
    } finally {
      try {
        process.kill(-step.child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    }
    expect(step.stdout).toMatch(/product\.created .* verified/);
    const report = JSON.parse(readFileSync(join(dir, "vitest.json"), "utf8")) as { numPassedTests: number; numFailedTests: number };
    expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({ passed: 2, failed: 0 });
  }, 120_000);

  it("the client and the webhook library type-check with --strict and module NodeNext, and load with require()", async () => {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, types: [] }, files: ["check.ts"] }));
    const tsc = await exec(dir, join(dir, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"]);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    const required = await exec(dir, process.execPath, ["require.cjs"]);
    expect(required.code, required.stderr).toBe(0);
    expect(JSON.parse(required.stdout)).toEqual({ client: "function", verified: true });
  }, 90_000);
});
