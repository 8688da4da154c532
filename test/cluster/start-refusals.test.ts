import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt } from "../../cli/src/e2e/processes.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { spawnServe } from "./cluster.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster start-refusal tests"));

/** Runs `lp serve` on `redisUrl` until it exits by itself; its exit code and its stderr lines. */
async function failedStart(redisUrl: string, env?: Record<string, string>) {
  const { proc, sandbox } = spawnServe(redisUrl, [], env);
  try {
    const code = await proc.exited;
    return { code, lines: proc.stderr.split("\n").filter((line) => line.trim() !== ""), stdout: proc.stdout };
  } finally {
    sandbox.remove();
  }
}

const keysIn = (port: number, db: number, password?: string) =>
  Number(spawnSync("redis-cli", ["-p", String(port), "-n", String(db), ...(password ? ["-a", password, "--no-auth-warning"] : []), "DBSIZE"], { encoding: "utf8" }).stdout.trim());

/**
 * `lp serve --storage redis` on a Redis it cannot use ends by itself with exit 1 and one line naming the
 * URL (password masked) and the cause, and writes nothing anywhere: it never runs on without a port, and a
 * database number out of range never falls back to database 0.
 */
describe.skipIf(!redisAvailable)("lp serve refuses a Redis it cannot use", () => {
  let plain: RedisServer;
  let guarded: RedisServer;
  beforeAll(async () => {
    assertBuilt();
    plain = await startRedisServer({ args: ["--databases", "4"] });
    guarded = await startRedisServer({ args: ["--requirepass", "right-password"] });
  }, 30_000);
  afterAll(async () => {
    await plain?.dispose();
    await guarded?.dispose();
  });

  const cases: Array<[string, () => string, RegExp]> = [
    ["nothing listening", () => "redis://127.0.0.1:1/0", /nothing accepts connections at 127\.0\.0\.1:1 \(ECONNREFUSED\)/],
    ["a wrong password (WRONGPASS)", () => `redis://:wrong-password@127.0.0.1:${guarded.port}/0`, /password .* refused \(WRONGPASS/],
    ["no password where one is required (NOAUTH)", () => `redis://127.0.0.1:${guarded.port}/0`, /asks for a password and the URL gives none/],
    ["a host that does not resolve (ENOTFOUND)", () => "redis://lp-no-such-host.invalid:6379/0", /lp-no-such-host\.invalid cannot be resolved \((ENOTFOUND|EAI_AGAIN)\)/],
    ["rediss:// on a port without TLS", () => `rediss://127.0.0.1:${plain.port}/0`, /TLS/],
    ["a database index out of range", () => `redis://127.0.0.1:${plain.port}/9`, /database 9 does not exist on this Redis .* never falls back to database 0/],
  ];

  it.each(cases)("%s: exit 1 with one line naming the cause", { timeout: 30_000 }, async (_name, url, cause) => {
    const { code, lines, stdout } = await failedStart(url());
    expect(code).toBe(1);
    expect(lines, lines.join("\n")).toHaveLength(1);
    expect(lines[0]).toMatch(/^Error: Redis at rediss?:\/\//);
    expect(lines[0]).toMatch(cause);
    expect(lines[0]).not.toContain("wrong-password");
    expect(stdout).toBe("");
  });

  it("writes nothing to database 0 when the URL names a database out of range", { timeout: 30_000 }, async () => {
    expect((await failedStart(`redis://127.0.0.1:${plain.port}/9`)).code).toBe(1);
    expect(keysIn(plain.port, 0)).toBe(0);
  });

  it("starts on the same Redis once the URL is right (the refusals above are about the URL, not the server)", { timeout: 60_000 }, async () => {
    const { proc, sandbox } = spawnServe(`redis://:right-password@127.0.0.1:${guarded.port}/0`, ["--quiet"]);
    try {
      await proc.waitFor("stderr", /^Ready at /m);
      expect(proc.stderr).not.toContain("right-password");
      expect(keysIn(guarded.port, 0, "right-password")).toBeGreaterThan(0);
    } finally {
      proc.child.kill("SIGKILL");
      await proc.exited;
      sandbox.remove();
    }
  });
});
