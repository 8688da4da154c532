import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { assertBuilt, createSandbox, runLp, spawnLp, type LpProcess } from "./processes.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every folder and file under `dir`, with its mode. */
function modesUnder(dir: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.push({ path, dir: entry.isDirectory(), mode: modeOf(path) });
    if (entry.isDirectory()) out.push(...modesUnder(path));
  }
  return out;
}

describe("lp serve (built): exposure, admin key and data dir", () => {
  const sandbox = createSandbox();
  const running: LpProcess[] = [];
  afterAll(() => sandbox.remove());
  afterEach(async () => {
    for (const proc of running.splice(0)) {
      if (proc.child.exitCode === null) proc.child.kill("SIGTERM");
      await proc.exited;
    }
  });

  /** Starts `lp serve --print-env` on its embedded store in `dataDir`; resolves with its env lines once ready. */
  async function serve(dataDir: string, extra: string[] = [], env: Record<string, string> = {}) {
    assertBuilt();
    const proc = spawnLp(["serve", "--port", "0", "--data-dir", dataDir, "--print-env", "--quiet", ...extra], { env: { ...sandbox.env, ...env }, cwd: sandbox.dir });
    running.push(proc);
    await proc.waitFor("stderr", /^Ready at /m);
    // The env lines are one write, so the last of them marks the block complete.
    await proc.waitFor("stdout", /^LP_APP_SECRET=.*\n/m);
    const lines = Object.fromEntries(proc.stdout.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    return { proc, env: lines };
  }

  async function stop(proc: LpProcess) {
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }

  const mintAccount = (url: string, key: string) =>
    fetch(`${url}/_admin/accounts`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: "{}" });

  it("refuses a short admin key on a non-loopback bind (exit 2), and warns that /_admin is reachable", async () => {
    const short = await runLp(["serve", "--host", "0.0.0.0", "--port", "0", "--storage", "memory"], { env: { ...sandbox.env, LP_ADMIN_KEY: "x" }, cwd: sandbox.dir });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("LP_ADMIN_KEY");
    expect(short.stderr).toContain("--no-admin");

    const key = "k".repeat(32);
    const { proc, env } = await serve(join(sandbox.dir, "exposed"), ["--host", "0.0.0.0"], { LP_ADMIN_KEY: key });
    expect(proc.stderr).toMatch(/\/_admin .*reachable from the network/);
    const port = new URL(env.LP_API_URL).port;
    expect((await mintAccount(`http://127.0.0.1:${port}`, key)).status).toBe(201);
    await stop(proc);

    // Loopback stays as it was: any key, no warning; --no-admin lifts the rule on a network bind.
    const loop = await serve(join(sandbox.dir, "loop"), [], { LP_ADMIN_KEY: "x" });
    expect(loop.proc.stderr).not.toMatch(/reachable from the network/);
    await stop(loop.proc);
    const noAdmin = await serve(join(sandbox.dir, "no-admin"), ["--host", "0.0.0.0", "--no-admin"], { LP_ADMIN_KEY: "x" });
    expect(noAdmin.proc.stderr).not.toMatch(/reachable from the network/);
    await stop(noAdmin.proc);
  });

  it("keeps the generated admin key across restarts on one data dir; LP_ADMIN_KEY still wins", async () => {
    const dataDir = join(sandbox.dir, "keep");
    const first = await serve(dataDir);
    const key = first.env.LP_ADMIN_KEY;
    expect(key.length).toBeGreaterThanOrEqual(32);
    await stop(first.proc);

    const second = await serve(dataDir);
    expect(second.env.LP_ADMIN_KEY).toBe(key);
    expect((await mintAccount(second.env.LP_API_URL, key)).status).toBe(201);
    await stop(second.proc);

    const explicit = "e".repeat(40);
    const third = await serve(dataDir, [], { LP_ADMIN_KEY: explicit });
    expect(third.env.LP_ADMIN_KEY).toBe(explicit);
    expect((await mintAccount(third.env.LP_API_URL, key)).status).toBe(401);
    expect((await mintAccount(third.env.LP_API_URL, explicit)).status).toBe(201);
    await stop(third.proc);
  });

  it("creates the data dir 0700 with files 0600, and tightens a looser one at start, saying so", async () => {
    const fresh = join(sandbox.dir, "fresh");
    const a = await serve(fresh);
    await fetch(`${a.env.LP_API_URL}/v1/accounts/${a.env.LP_ACCOUNT}/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.env.LP_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Private", price: 1, product_type: "service" }),
    });
    expect(modeOf(fresh)).toBe(0o700);
    const inside = modesUnder(fresh);
    expect(inside.some((e) => e.path.endsWith("credentials.json"))).toBe(true);
    expect(inside.some((e) => e.path.endsWith("lp.lock"))).toBe(true);
    expect(inside.filter((e) => !e.dir).length).toBeGreaterThan(3);
    for (const e of inside) expect([e.path, e.mode]).toEqual([e.path, e.dir ? 0o700 : 0o600]);
    await stop(a.proc);
    expect(a.proc.stderr).not.toMatch(/tightened/);

    const loose = join(sandbox.dir, "loose");
    mkdirSync(join(loose, "data", "old"), { recursive: true });
    writeFileSync(join(loose, "data", "old", "record"), "{}");
    for (const [path, mode] of [[loose, 0o755], [join(loose, "data"), 0o775], [join(loose, "data", "old"), 0o755], [join(loose, "data", "old", "record"), 0o644]] as const) chmodSync(path, mode);
    const b = await serve(loose);
    expect(b.proc.stderr).toContain(`tightened permissions of ${loose} from 0755 to 0700`);
    expect(modeOf(loose)).toBe(0o700);
    for (const e of modesUnder(loose)) expect([e.path, e.mode]).toEqual([e.path, e.dir ? 0o700 : 0o600]);
    await stop(b.proc);
  });
});
