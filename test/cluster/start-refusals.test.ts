import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt } from "../../cli/src/e2e/processes.js";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../../core/src/testing/postgres-server.js";
import { spawnServe } from "./cluster.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the cluster start-refusal tests"));

/** Runs `lp serve` on `databaseUrl` until it exits by itself: its exit code, its stderr lines, and how long it ran. */
async function failedStart(databaseUrl: string, env?: Record<string, string>) {
  const started = performance.now();
  const { proc, sandbox } = spawnServe(databaseUrl, [], env);
  try {
    const code = await proc.exited;
    return { code, ms: performance.now() - started, lines: proc.stderr.split("\n").filter((line) => line.trim() !== ""), stdout: proc.stdout };
  } finally {
    sandbox.remove();
  }
}

/** The tables of database `name` on `server` (lp's schema, when something migrated it). */
async function tablesOf(server: PostgresServer, name: string): Promise<string[]> {
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: server.url(name) });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
    return rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

/**
 * `lp serve --storage postgres` on a database it cannot use ends by itself with exit 1 and one line naming
 * the URL (password masked) and the cause, within 5 s (DESIGN §12), and writes nothing anywhere: it never
 * runs on without a port, and never serves another database in place of the one named.
 */
describe.skipIf(!postgresAvailable)("lp serve refuses a PostgreSQL database it cannot use", () => {
  let server: PostgresServer;
  // A port that accepts connections and never answers: a server that hangs, or a firewall that swallows.
  let silent: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    assertBuilt();
    server = await startPostgresServer({ fsync: false });
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  }, 30_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await server?.dispose();
  });

  const silentPort = () => (silent.address() as { port: number }).port;
  const cases: Array<[string, () => string, RegExp]> = [
    ["nothing listening", () => "postgres://lp:secret-password@127.0.0.1:1/lp", /nothing accepts connections at 127\.0\.0\.1:1 \(ECONNREFUSED\)/],
    ["a port that never answers", () => `postgres://lp@127.0.0.1:${silentPort()}/lp`, /no answer from 127\.0\.0\.1:\d+ within \d\.\d s/],
    ["a host that does not resolve", () => "postgres://lp@lp-no-such-host.invalid:5432/lp", /the host lp-no-such-host\.invalid cannot be resolved \((ENOTFOUND|EAI_AGAIN)\)/],
    ["a user the server refuses", () => `postgres://nobody:secret-password@127.0.0.1:${server.port}/postgres`, /the server refused user "nobody" \(28000/],
    ["a database that does not exist", () => server.url("lp_missing"), /database "lp_missing" does not exist \(3D000\).*never falls back to another database/],
    ["a URL that names no database", () => `postgres://postgres@127.0.0.1:${server.port}/`, /names no database: add it to the path/],
  ];

  it.each(cases)("%s: exit 1 within 5 s with one line naming the cause", { timeout: 30_000 }, async (_name, url, cause) => {
    const { code, ms, lines, stdout } = await failedStart(url());
    expect(code).toBe(1);
    expect(lines, lines.join("\n")).toHaveLength(1);
    expect(lines[0]).toMatch(/^Error: PostgreSQL at postgres:\/\//);
    expect(lines[0]).toMatch(cause);
    expect(lines[0]).not.toContain("secret-password");
    expect(stdout).toBe("");
    expect(ms, "DESIGN §12: start-up faults exit within 5 s").toBeLessThan(5_000);
  });

  it("migrates nothing into another database when the one named is missing or unnamed", { timeout: 30_000 }, async () => {
    expect((await failedStart(server.url("lp_missing"))).code).toBe(1);
    expect((await failedStart(`postgres://postgres@127.0.0.1:${server.port}/`)).code).toBe(1);
    expect(await tablesOf(server, "postgres")).toEqual([]);
  });

  it("starts on the same server once the URL is right (the refusals above are about the URL, not the server)", { timeout: 60_000 }, async () => {
    const url = await server.createDatabase();
    const { proc, sandbox } = spawnServe(url, ["--quiet"]);
    try {
      await proc.waitFor("stderr", /^Ready at /m);
      expect(await tablesOf(server, new URL(url).pathname.slice(1))).toContain("products");
    } finally {
      proc.child.kill("SIGKILL");
      await proc.exited;
      sandbox.remove();
    }
  });
});
