import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assertBuilt, createSandbox, runLp, spawnLp, startServe } from "./processes.js";

/** Resolves true when something can listen on `port` again. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

describe("lp serve (built)", () => {
  it("prints its env lines once ready and exits 0 on SIGTERM", async () => {
    assertBuilt();
    const s = await startServe();
    expect(s.env.LP_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(s.env).filter((k) => k.startsWith("LP_")).sort()).toEqual(
      ["LP_ACCOUNT", "LP_ADMIN_KEY", "LP_API_URL", "LP_APP_ID", "LP_APP_SECRET", "LP_POLL_INTERVAL_MS", "LP_TOKEN"],
    );
    expect((await fetch(`${s.env.LP_API_URL}/healthz`)).status).toBe(200);
    expect(await s.stop()).toBe(0);
    expect(s.proc.stderr).toMatch(/SIGTERM: stopping;[^\n]*\nStopped\.\n$/);
  });

  it("exits 1 with a clear message when the port is taken, and turns the admin API off with --no-admin", async () => {
    const s = await startServe(["--no-admin"]);
    try {
      expect(s.env.LP_ADMIN_KEY).toBeUndefined();
      expect((await fetch(`${s.env.LP_API_URL}/_admin/export`)).status).toBe(404);
      const port = new URL(s.env.LP_API_URL).port;
      const busy = await runLp(["serve", "--storage", "memory", "--port", port], { env: s.sandbox.env, cwd: s.sandbox.dir });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`Port ${port}`);
    } finally {
      await s.stop();
    }
  });
});

describe("lp serve in the background, as the README runs it", () => {
  it("writes --write-env and --pid-file only once ready; kill of that pid stops it cleanly and frees the port", async () => {
    assertBuilt();
    const sandbox = createSandbox();
    try {
      // The README runs the linked shim, not npx: the process started is the server itself.
      const proc = spawnLp(["serve", "--storage", "memory", "--port", "0", "--write-env", ".lp.env", "--pid-file", ".lp.pid", "--quiet"], {
        env: sandbox.env,
        cwd: sandbox.dir,
        shim: true,
      });
      const [, url] = await proc.waitFor("stderr", /^Ready at (\S+) /m);
      const env = readFileSync(join(sandbox.dir, ".lp.env"), "utf8");
      expect(env).toContain(`LP_API_URL=${url}\n`);
      expect(env).toMatch(/^LP_TOKEN=\S+$/m);
      const pid = Number(readFileSync(join(sandbox.dir, ".lp.pid"), "utf8"));
      expect(pid).toBe(proc.child.pid);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      process.kill(pid, "SIGTERM"); // kill "$(cat .lp.pid)"
      expect(await proc.exited).toBe(0);
      expect(proc.stderr).toMatch(/Stopped\.\n$/);
      expect(await isFree(Number(new URL(url).port))).toBe(true);
      expect(existsSync(join(sandbox.dir, ".lp.env"))).toBe(false);
      expect(existsSync(join(sandbox.dir, ".lp.pid"))).toBe(false);
    } finally {
      sandbox.remove();
    }
  });
});
