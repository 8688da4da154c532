import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../testing/postgres-server.js";
import { checkPostgresAtStart, PostgresStartError, redactDatabaseUrl } from "./postgres-preflight.js";

/** The error `checkPostgresAtStart` rejects with (a test fails if it resolves). */
async function refusal(url: string, timeoutMs?: number): Promise<PostgresStartError> {
  const error = await checkPostgresAtStart(url, timeoutMs).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PostgresStartError);
  return error as PostgresStartError;
}

describe("the start-up check of a PostgreSQL URL, without a server", () => {
  // A port that accepts connections and never answers: a hung server, or a firewall that swallows.
  let silent: Server;
  const held: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it("masks the password of a URL, parseable or not", () => {
    expect(redactDatabaseUrl("postgres://lp:s3cret@db:5432/shop")).toBe("postgres://lp:***@db:5432/shop");
    expect(redactDatabaseUrl("postgres://lp@db/shop")).toBe("postgres://lp@db/shop");
    expect(redactDatabaseUrl("postgres://lp:s3cret@db:notaport/shop")).toBe("postgres://lp:***@db:notaport/shop");
  });

  it("refuses a URL of another scheme, and one that names no database, before connecting", async () => {
    expect((await refusal("mysql://lp:pw@127.0.0.1/shop")).message).toBe("PostgreSQL at mysql://lp:***@127.0.0.1/shop: not a URL like postgres://user@127.0.0.1:5432/lp");
    // Port 1: were it to connect, the answer would be ECONNREFUSED instead.
    expect((await refusal("postgres://lp@127.0.0.1:1")).message).toMatch(/names no database: add it to the path/);
    expect((await refusal("postgres://lp@127.0.0.1:1/")).message).toMatch(/names no database/);
  });

  it("names the address when nothing listens there", async () => {
    const error = await refusal("postgres://lp:pw@127.0.0.1:1/lp");
    expect(error.message).toBe("PostgreSQL at postgres://lp:***@127.0.0.1:1/lp cannot be used: nothing accepts connections at 127.0.0.1:1 (ECONNREFUSED): start the server or fix the host and port");
  });

  it("gives up on a port that accepts and never answers, after the timeout it is given", async () => {
    const port = (silent.address() as { port: number }).port;
    const error = await refusal(`postgres://lp@127.0.0.1:${port}/lp`, 300);
    expect(error.message).toBe(`PostgreSQL at postgres://lp@127.0.0.1:${port}/lp cannot be used: no answer from 127.0.0.1:${port} within 0.3 s`);
  });
});

if (!postgresAvailable) console.warn(postgresSkipReason("the start-up check of a PostgreSQL URL against a server"));

describe.skipIf(!postgresAvailable)("the start-up check of a PostgreSQL URL, against a server", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterAll(async () => server?.dispose());

  it("passes for a database that exists", async () => {
    await expect(checkPostgresAtStart(await server.createDatabase())).resolves.toBeUndefined();
  });

  it("names a database that does not exist, and says it never takes another", async () => {
    const error = await refusal(server.url("lp_absent"));
    expect(error.message).toMatch(/cannot be used: database "lp_absent" does not exist \(3D000\): create it first \(createdb\); lp never falls back to another database$/);
  });

  it("names a user the server refuses, with the password masked", async () => {
    const error = await refusal(`postgres://nobody:pw@127.0.0.1:${server.port}/postgres`);
    expect(error.message).toMatch(new RegExp(`^PostgreSQL at postgres://nobody:\\*\\*\\*@127\\.0\\.0\\.1:${server.port}/postgres cannot be used: the server refused user "nobody" \\(28000: `));
  });
});
