import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { CLUSTER_ADMIN_KEY, spawnServe } from "./cluster.js";
import { useCluster } from "./use-cluster.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the cluster agreement tests"));

/** Starts `lp serve` on `databaseUrl` and waits until it is ready or has exited: its exit code (null while it runs) and stderr. */
async function tryStart(databaseUrl: string, args: string[], env?: Record<string, string>) {
  const { proc, sandbox } = spawnServe(databaseUrl, ["--print-env", ...args], env);
  // Ready, with the env lines in (stdout and stderr are separate pipes: either may arrive first), or exited.
  const ready = Promise.all([proc.waitFor("stderr", /^Ready at /m), proc.waitFor("stdout", /^LP_APP_SECRET=.*\n/m)]).then(() => null);
  const outcome = await Promise.race([ready.catch(() => proc.exited), proc.exited]);
  return {
    code: outcome,
    stdout: proc.stdout,
    stderr: proc.stderr,
    lines: proc.stderr.split("\n").filter((line) => line.trim() !== ""),
    async stop() {
      if (proc.child.exitCode === null) proc.child.kill("SIGKILL");
      await proc.exited;
      sandbox.remove();
    },
  };
}

const FINGERPRINT = /admin key fingerprint ([0-9a-f]{12}), the same on every process of this database/;

/**
 * Processes on one database are one service, so they must agree on the admin key: the database keeps it
 * (the `admin_key` setting), and a process given another key refuses to start (exit 1, one line with both
 * fingerprints, never a key) instead of serving beside the others with an admin API of its own.
 */
describe.skipIf(!postgresAvailable)("processes that disagree on the admin key", () => {
  const cluster = useCluster({ processes: 1 });

  it("refuses a second process with another LP_ADMIN_KEY, naming both fingerprints", { timeout: 60_000 }, async () => {
    const other = await tryStart(cluster.databaseUrl, [], { LP_ADMIN_KEY: "another-admin-key-0123456789abcdefgh" });
    await other.stop();
    expect(other.code).toBe(1);
    expect(other.lines.at(-1)).toMatch(
      /^Error: the admin key given \(--admin-key or LP_ADMIN_KEY, fingerprint [0-9a-f]{12}\) is not the one this database keeps \(fingerprint [0-9a-f]{12}\): every process on one database serves one admin key/,
    );
    expect(other.stderr).not.toContain("another-admin-key");
    expect(other.stderr).not.toContain(CLUSTER_ADMIN_KEY);
    expect(other.stdout).toBe("");
  });

  it("starts a second process with no LP_ADMIN_KEY on the stored key, with the same fingerprint", { timeout: 60_000 }, async () => {
    const joined = await tryStart(cluster.databaseUrl, [], {});
    await joined.stop();
    expect(joined.code).toBeNull();
    expect(joined.stdout).toContain(`LP_ADMIN_KEY=${CLUSTER_ADMIN_KEY}\n`);
    expect(FINGERPRINT.exec(joined.stderr)?.[1]).toBe(FINGERPRINT.exec(cluster.nodes[0].proc.stderr)?.[1]);
  });

  it("keeps refusing another key once every process is gone: the key is the database's, not a live process's", { timeout: 60_000 }, async () => {
    await cluster.kill(0);
    const other = await tryStart(cluster.databaseUrl, [], { LP_ADMIN_KEY: "the-new-admin-key-0123456789abcdefgh" });
    await other.stop();
    expect(other.code).toBe(1);
    expect(other.lines.at(-1)).toMatch(/is not the one this database keeps/);
  });
});

describe.skipIf(!postgresAvailable)("processes sharing a data dir", () => {
  const cluster = useCluster({ processes: 1 });

  it("leaves credentials.json to the live process that wrote it when a second one shares its data dir", { timeout: 60_000 }, async () => {
    const [first] = cluster.nodes;
    const path = join(first.dataDir, "credentials.json");
    const before = readFileSync(path, "utf8");
    const second = await tryStart(cluster.databaseUrl, ["--data-dir", first.dataDir]);
    await second.stop();
    expect(second.code).toBeNull();
    expect(second.stderr).toContain(`credentials in ${path} name ${first.url}, another live process of this service; left as they are`);
    expect(second.stderr).not.toMatch(/lp commands run in .* use them/);
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});

/** With --public-url, what a process hands out (print-env, credentials.json, the banner) is the public URL. */
describe.skipIf(!postgresAvailable)("processes behind one public URL", () => {
  const cluster = useCluster({ processes: 2, flags: ["--public-url", "https://lp.example.test/"], env: {} });

  it("hands out the public URL and one admin key (generated once, kept in the database) from every process", () => {
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
