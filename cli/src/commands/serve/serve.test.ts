import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@lp/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { toEnvLines, toOptions } from "./serve.js";

describe("serve: parsing", () => {
  it("parses durations and passes later options through", () => {
    const opts = toOptions({
      args: [],
      flags: { host: "127.0.0.1", port: "0", storage: "memory", dataDir: ".lp", admin: false, retrySchedule: "0,1s,2s", deployDelay: "6s", public: true, seed: true },
    });
    expect(opts).toMatchObject({ port: 0, storage: "memory", admin: false, retrySchedule: [0, 1000, 2000], deployDelayMs: 6000, publicOnly: true, seed: true });
    expect(() => toOptions({ args: [], flags: { port: "70000", storage: "fs" } })).toThrow(/--port/);
    expect(() => toOptions({ args: [], flags: { port: "1", storage: "files" } })).toThrow(/--storage: 'files' must be one of sqlite, memory, postgres/);
    // `fs`, the embedded store's earlier name, still means it.
    expect(toOptions({ args: [], flags: { port: "1", storage: "fs" } }).storage).toBe("sqlite");
    expect(toOptions({ args: [], flags: { port: "1", storage: "sqlite" } }).storage).toBe("sqlite");
  });

  it("takes --max-endpoints (default 100) as a positive integer", () => {
    const base = { host: "127.0.0.1", port: "0", storage: "memory", dataDir: ".lp" };
    expect(toOptions({ args: [], flags: base }).maxEndpoints).toBe(100);
    expect(toOptions({ args: [], flags: { ...base, maxEndpoints: "3000" } }).maxEndpoints).toBe(3000);
    expect(() => toOptions({ args: [], flags: { ...base, maxEndpoints: "0" } })).toThrow(/--max-endpoints/);
  });

  it("parses --checkout-rate-limit, leaving the default to the server when absent", () => {
    const rate = (value?: string) => toOptions({ args: [], flags: { port: "0", storage: "memory", checkoutRateLimit: value } }).checkoutRateLimit;
    expect(rate("30/min")).toEqual({ count: 30, windowMs: 60_000 });
    expect(rate("5/s")).toEqual({ count: 5, windowMs: 1000 });
    expect(rate("500/h")).toEqual({ count: 500, windowMs: 3_600_000 });
    expect(rate("off")).toBeNull();
    expect(rate("0")).toBeNull();
    expect(rate(undefined)).toBeUndefined();
    for (const bad of ["30", "30/fortnight", "-1/min", "0/min", "x/min"]) expect(() => rate(bad), bad).toThrow(/--checkout-rate-limit/);
  });

  it("prints env lines, without LP_ADMIN_KEY when the admin API is off", () => {
    const creds = { api_url: "http://h", account: "a", token: "t", app_id: "i", app_secret: "s", admin_key: null };
    expect(toEnvLines(creds)).toBe("LP_API_URL=http://h\nLP_TOKEN=t\nLP_ACCOUNT=a\nLP_APP_ID=i\nLP_APP_SECRET=s\n");
  });
});

describe("serve: running", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "lp-serve-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("hands startServer the flags, with LP_ADMIN_KEY as the admin key", async () => {
    const fake = createFakeIo({ cwd, env: { LP_ADMIN_KEY: "adm" } });
    let given: Record<string, unknown> = {};
    const startServer = async (options: Record<string, unknown>) => {
      given = options;
      throw new Error("not starting in this test");
    };
    const code = await main(["serve", "--port", "0", "--retry-schedule", "0,1s", "--deploy-delay", "3s", "--public", "--no-admin", "--data-dir", "d"], fake.io, { startServer });
    expect(code).toBe(1);
    expect(given).toMatchObject({ port: 0, storage: "sqlite", dataDir: join(cwd, "d"), admin: false, adminKey: "adm", retrySchedule: [0, 1000], deployDelayMs: 3000, publicOnly: true });
  });

  it("starts, writes credentials (0600), seeds, prints env lines, and stops on a signal", async () => {
    const fake = createFakeIo({ cwd });
    const running = main(["serve", "--storage", "memory", "--port", "0", "--print-env", "--quiet", "--seed"], fake.io);
    await fake.waitForStderr(/Ready at /);
    const env = Object.fromEntries(fake.stdout.trim().split("\n").map((line) => line.split("=", 2)));
    expect(fake.stderr).toMatch(/dashboard: http:\/\/127\.0\.0\.1:\d+\/_dashboard\/login\?token=[\w-]+ /);
    expect(Object.keys(env)).toEqual(["LP_API_URL", "LP_TOKEN", "LP_ACCOUNT", "LP_APP_ID", "LP_APP_SECRET", "LP_ADMIN_KEY"]);
    const credsPath = join(cwd, ".lp", "credentials.json");
    expect(statSync(credsPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(credsPath, "utf8"))).toMatchObject({ api_url: env.LP_API_URL, token: env.LP_TOKEN, account: env.LP_ACCOUNT });
    const client = createClient({ baseUrl: env.LP_API_URL, token: env.LP_TOKEN, accountId: env.LP_ACCOUNT });
    expect((await client.products.list()).data).toHaveLength(5);
    fake.shutdown();
    expect(await running).toBe(0);
    expect(fake.stderr).toMatch(/Stopped\.\n$/);
    expect(existsSync(credsPath)).toBe(false);
  });

  it("--open opens a working one-time dashboard login once ready, and is refused with --no-admin", async () => {
    const fake = createFakeIo({ cwd });
    const opened: string[] = [];
    const running = main(["serve", "--storage", "memory", "--port", "0", "--quiet", "--open"], fake.io, { openUrl: (url) => opened.push(url) });
    await fake.waitForStderr(/Ready at /);
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_dashboard\/login\?token=[\w-]+$/);
    // Not the one printed above: each login URL works once.
    expect(fake.stderr).not.toContain(opened[0]);
    const login = await fetch(opened[0]!, { redirect: "manual" });
    expect(login.headers.get("set-cookie")).toMatch(/./);
    fake.shutdown();
    expect(await running).toBe(0);
    const refused = createFakeIo({ cwd });
    expect(await main(["serve", "--open", "--no-admin"], refused.io)).toBe(2);
    expect(refused.stderr).toContain("--open opens the dashboard, which --no-admin turns off.");
  });
});
