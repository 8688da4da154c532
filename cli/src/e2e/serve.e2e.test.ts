import { describe, expect, it } from "vitest";
import { assertBuilt, runLp, startServe } from "./processes.js";

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
