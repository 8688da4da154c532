import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../../core/src/testing/redis-server.js";
import { pollUntil } from "../crash/crash-api.js";
import { CLUSTER_ADMIN_KEY, spawnServe } from "./cluster.js";
import { useCluster } from "./use-cluster.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster agreement tests"));

/** Starts `lp serve` on `redisUrl` and waits until it is ready or has exited: its exit code (null while it runs) and stderr. */
async function tryStart(redisUrl: string, args: string[], env?: Record<string, string>) {
  const { proc, sandbox } = spawnServe(redisUrl, args, env);
  const outcome = await Promise.race([proc.waitFor("stderr", /^Ready at /m).then(() => null), proc.exited]);
  return {
    code: outcome,
    stderr: proc.stderr,
    lines: proc.stderr.split("\n").filter((line) => line.trim() !== ""),
    async stop() {
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
      await proc.exited;
      sandbox.remove();
    },
  };
}

/**
 * Processes on one Redis and prefix are one service, so they must agree on what clients see: a process
 * whose admin key or public URL differs from a live one's refuses to start (exit 1, one line saying which
 * setting and how to fix it); one on another prefix starts, and says that this Redis serves another prefix.
 */
describe.skipIf(!redisAvailable)("processes that disagree on the admin key, the public URL or the prefix", () => {
  const cluster = useCluster({ processes: 1 });

  it("refuses a second process with another LP_ADMIN_KEY, naming both fingerprints", { timeout: 60_000 }, async () => {
    const other = await tryStart(cluster.redis.url, [], { LP_ADMIN_KEY: "another-admin-key-0123456789abcdefgh" });
    await other.stop();
    expect(other.code).toBe(1);
    expect(other.lines.at(-1)).toMatch(/^Error: this process's admin key \(fingerprint [0-9a-f]{12}\) differs from the one of the process at http:\/\/127\.0\.0\.1:\d+ .* \(fingerprint [0-9a-f]{12}\); give every process the same LP_ADMIN_KEY/);
    expect(other.stderr).not.toContain("another-admin-key");
  });

  it("refuses a second process with no LP_ADMIN_KEY (the generated key in Redis) when the live one has its own", { timeout: 60_000 }, async () => {
    const other = await tryStart(cluster.redis.url, [], {});
    await other.stop();
    expect(other.code).toBe(1);
    expect(other.lines.at(-1)).toMatch(/admin key .* differs/);
  });

  it("refuses a second process with a --public-url the live one does not have", { timeout: 60_000 }, async () => {
    const other = await tryStart(cluster.redis.url, ["--public-url", "https://lp.example.test"]);
    await other.stop();
    expect(other.code).toBe(1);
    expect(other.lines.at(-1)).toMatch(/^Error: this process has --public-url https:\/\/lp\.example\.test but the process at .* has no --public-url; every process of a cluster needs the same one/);
  });

  it("starts a process on another prefix, which says that this Redis serves live processes under the first one", { timeout: 60_000 }, async () => {
    const other = await tryStart(cluster.redis.url, ["--redis-prefix", "lp-typo:"]);
    await other.stop();
    expect(other.code).toBeNull();
    expect(other.stderr).toMatch(/warning: prefix 'lp-typo:' held no data and has no other process, while this Redis database serves live processes under 'lp:'/);
  });

  it("leaves credentials.json to the live process that wrote it when a second one shares its data dir", { timeout: 60_000 }, async () => {
    const [first] = cluster.nodes;
    const path = join(first.dataDir, "credentials.json");
    const before = readFileSync(path, "utf8");
    const second = await tryStart(cluster.redis.url, ["--data-dir", first.dataDir]);
    await second.stop();
    expect(second.code).toBeNull();
    expect(second.stderr).toContain(`credentials in ${path} name ${first.url}, another live process of this service; left as they are`);
    expect(second.stderr).not.toMatch(/lp commands run in .* use them/);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("lets a process with another key start once every process that had the old one is gone (a killed one drops out)", { timeout: 60_000 }, async () => {
    const joined = await tryStart(cluster.redis.url, []);
    expect(joined.code).toBeNull();
    expect(joined.stderr).toMatch(/cluster: prefix 'lp:', joined \d+ live process(es)?, admin key fingerprint [0-9a-f]{12}/);
    await joined.stop();
    await cluster.kill(0);
    const next = await pollUntil("a process with a new key starting after the old ones are gone", 30_000, async () => {
      const attempt = await tryStart(cluster.redis.url, [], { LP_ADMIN_KEY: "the-new-admin-key-0123456789abcdefgh" });
      if (attempt.code === null) return attempt;
      await attempt.stop();
      return undefined;
    }, 500);
    expect(next.stderr).toMatch(/cluster: prefix 'lp:', first live process/);
    await next.stop();
  });
});

/** With --public-url, what a process hands out (print-env, credentials.json, the banner) is the public URL. */
describe.skipIf(!redisAvailable)("processes behind one public URL", () => {
  const cluster = useCluster({ processes: 2, flags: ["--public-url", "https://lp.example.test/"], env: {} });

  it("hands out the public URL and one admin key (generated once, shared through Redis) from every process", () => {
    for (const node of cluster.nodes) {
      expect(node.env.LP_API_URL).toBe("https://lp.example.test");
      expect(JSON.parse(readFileSync(join(node.dataDir, "credentials.json"), "utf8")).api_url).toBe("https://lp.example.test");
      expect(node.proc.stderr).toMatch(new RegExp(`^Ready at ${node.url} \\(public URL https://lp\\.example\\.test\\)`, "m"));
      expect(node.env.LP_ADMIN_KEY).toBe(cluster.nodes[0].env.LP_ADMIN_KEY);
    }
    expect(cluster.nodes[0].env.LP_ADMIN_KEY).toMatch(/^lpadm_/);
    expect(cluster.nodes[0].env.LP_ADMIN_KEY).not.toBe(CLUSTER_ADMIN_KEY);
  });
});
