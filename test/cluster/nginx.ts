import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The nginx binary the recipe test runs: `LP_NGINX`, else the one on PATH (Debian's `nginx-light`). */
const nginxBinary = process.env.LP_NGINX ?? "nginx";

/** Whether nginx can be run here. */
export const nginxAvailable: boolean = spawnSync(nginxBinary, ["-v"], { encoding: "utf8" }).status === 0;

/** Whether a missing nginx fails the suite instead of skipping it (`LP_REQUIRE_NGINX`, or CI). */
export const nginxRequired = Boolean(process.env.LP_REQUIRE_NGINX || process.env.CI);

/** The ```nginx block of docs/scale-out.md, as a user would copy it. */
export function recipeFromDocs(): string {
  const doc = readFileSync(fileURLToPath(new URL("../../docs/scale-out.md", import.meta.url)), "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error("docs/scale-out.md has no ```nginx block");
  return block[1];
}

/**
 * The recipe made runnable here, changing only what names the machine: its upstream servers become
 * `upstreams`, and `listen 443 ssl` becomes a plain listener on loopback `port` (no certificate here).
 */
export function localRecipe(recipe: string, upstreams: string[], port: number): string {
  const servers = /^(\s*)server 10\.0\.0\.\d+:4010( [^;]*);\n/gm;
  const first = servers.exec(recipe);
  if (!first) throw new Error("the recipe names no upstream server");
  const [indent, options] = [first[1], first[2]];
  const listed = upstreams.map((u) => `${indent}server ${u}${options};\n`).join("");
  let done = false;
  const swapped = recipe.replace(servers, () => (done ? "" : ((done = true), listed)));
  if (!/listen 443 ssl;/.test(swapped)) throw new Error("the recipe's listen line changed: update test/cluster/nginx.ts");
  return swapped.replace("listen 443 ssl;", `listen 127.0.0.1:${port};`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A running nginx with the recipe in front of some lp processes. */
export interface RecipeNginx {
  url: string;
  stop(): Promise<void>;
}

/** Starts nginx (in the foreground, in its own temporary prefix) with the doc's recipe in front of `upstreams`. */
export async function startRecipeNginx(upstreams: string[]): Promise<RecipeNginx> {
  const dir = mkdtempSync(join(tmpdir(), "lp-nginx-"));
  // Every temporary folder this build of nginx has (`nginx -V` lists them) goes here, so nothing needs root.
  const built = spawnSync(nginxBinary, ["-V"], { encoding: "utf8" }).stderr;
  const temps = [...built.matchAll(/--http-([a-z-]+)-temp-path=/g)].map((m) => m[1].replace(/-/g, "_"));
  for (const sub of temps) mkdirSync(join(dir, sub));
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    [
      // Run as root (CI containers), nginx's workers would switch to a user that cannot write here.
      process.getuid?.() === 0 ? "user root;" : "",
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${join(dir, "error.log")} warn;`,
      "events { worker_connections 256; }",
      "http {",
      "  access_log off;",
      ...temps.map((sub) => `  ${sub}_temp_path ${join(dir, sub)};`),
      localRecipe(recipeFromDocs(), upstreams, port),
      "}",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(nginxBinary, ["-p", dir, "-e", join(dir, "error.log"), "-c", conf, "-g", "daemon off;"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}${readFileSync(join(dir, "error.log"), "utf8")}`);
    const up = await fetch(`${url}/healthz`).then(() => true, () => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${url} within 10 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
