import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../../../../core/src/testing/postgres-server.js";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { REDIS_GONE, redactUrl, toOptions } from "./serve.js";

const image = readFileSync(new URL("../../../../fixtures/images/apron.png", import.meta.url));

describe("serve --storage postgres: flags", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "lp-serve-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const refusing = async () => {
    throw new Error("must not start");
  };

  it("parses --database-url, and refuses a malformed one without printing its password", () => {
    const base = { port: "0", storage: "postgres", dataDir: ".lp" };
    expect(toOptions({ args: [], flags: { ...base, databaseUrl: "postgres://lp@10.0.0.5:5432/shop" } })).toMatchObject({ storage: "postgres", databaseUrl: "postgres://lp@10.0.0.5:5432/shop" });
    expect(toOptions({ args: [], flags: { ...base, databaseUrl: "postgresql://lp@db/shop" } }).databaseUrl).toBe("postgresql://lp@db/shop");
    expect(() => toOptions({ args: [], flags: { ...base, databaseUrl: "mysql://lp:hunter2@db/shop" } })).toThrow(/--database-url: 'mysql:\/\/lp:\*\*\*@db\/shop' must be a URL like postgres:/);
    expect(redactUrl("postgres://lp:s3cret@db:5432/shop")).toBe("postgres://lp:***@db:5432/shop");
  });

  it("--storage redis is a usage error (exit 2) that names --storage postgres and the export/import way over", async () => {
    const fake = createFakeIo({ cwd, env: {} });
    expect(await main(["serve", "--storage", "redis", "--port", "0"], fake.io, { startServer: refusing })).toBe(2);
    expect(fake.stderr).toContain(REDIS_GONE);
    expect(REDIS_GONE).toMatch(/--storage postgres --database-url/);
    expect(REDIS_GONE).toMatch(/lp admin export .*lp admin import/);
  });

  it("without a URL, --storage postgres is a usage error naming the flag and LP_DATABASE_URL; a URL without it is one too", async () => {
    const fake = createFakeIo({ cwd, env: {} });
    expect(await main(["serve", "--storage", "postgres", "--port", "0"], fake.io, { startServer: refusing })).toBe(2);
    expect(fake.stderr).toMatch(/--database-url.*LP_DATABASE_URL/);
    const stray = createFakeIo({ cwd, env: {} });
    expect(await main(["serve", "--storage", "memory", "--database-url", "postgres://lp@h/db", "--port", "0"], stray.io, { startServer: refusing })).toBe(2);
    expect(stray.stderr).toContain("--database-url goes with --storage postgres.");
  });

  it("takes the URL from LP_DATABASE_URL, the flag winning; --clock manual is refused on PostgreSQL", async () => {
    let given: Record<string, unknown> = {};
    const startServer = async (options: Record<string, unknown>) => {
      given = options;
      throw new Error("not starting in this test");
    };
    const env = { LP_DATABASE_URL: "postgres://lp@10.0.0.1:5432/lp" };
    await main(["serve", "--storage", "postgres", "--port", "0"], createFakeIo({ cwd, env }).io, { startServer });
    expect(given).toMatchObject({ storage: "postgres", databaseUrl: "postgres://lp@10.0.0.1:5432/lp" });
    expect(given).not.toHaveProperty("redisUrl");
    await main(["serve", "--storage", "postgres", "--database-url", "postgres://lp@h:1/other", "--port", "0"], createFakeIo({ cwd, env }).io, { startServer });
    expect(given).toMatchObject({ databaseUrl: "postgres://lp@h:1/other" });
    const manual = createFakeIo({ cwd, env });
    expect(await main(["serve", "--storage", "postgres", "--clock", "manual", "--port", "0"], manual.io, { startServer: refusing })).toBe(2);
    expect(manual.stderr).toContain("--clock manual works with --storage memory or sqlite");
  });
});

if (!postgresAvailable) console.warn(postgresSkipReason("lp serve on PostgreSQL"));

describe.skipIf(!postgresAvailable)("serve --storage postgres: running", () => {
  let server: PostgresServer;
  let cwd: string;
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterAll(async () => server?.dispose());
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "lp-serve-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("two servers started together on one database and data dir share credentials, records, media and cursors; the data dir holds only credentials.json", async () => {
    const url = await server.createDatabase();
    const one = createFakeIo({ cwd, env: {} });
    const two = createFakeIo({ cwd, env: {} });
    const args = ["serve", "--storage", "postgres", "--database-url", url, "--port", "0", "--print-env", "--quiet"];
    // Started together on the same --data-dir: no data-dir lock on PostgreSQL (the state is shared on
    // purpose), and both must print the same credentials although each found none when it started.
    const first = main(args, one.io);
    const second = main(args, two.io);
    await Promise.all([one.waitForStderr(/Ready at /), two.waitForStderr(/Ready at /)]);
    expect(one.stderr).toContain(`(storage: postgres, ${url})`);
    expect(one.stderr).toMatch(/admin key fingerprint [0-9a-f]{12}, the same on every process of this database/);
    const env = (out: string) => Object.fromEntries(out.trim().split("\n").map((line) => line.split("=", 2)));
    const [a, b] = [env(one.stdout), env(two.stdout)];
    expect([a.LP_TOKEN, a.LP_ADMIN_KEY, a.LP_APP_SECRET]).toEqual([b.LP_TOKEN, b.LP_ADMIN_KEY, b.LP_APP_SECRET]);
    const auth = (e: Record<string, string>) => ({ authorization: `Bearer ${e.LP_TOKEN}` });
    expect(await (await fetch(`${b.LP_API_URL}/healthz`)).json()).toEqual({ status: "ok", storage: "postgres" });

    // A product with an image, written through one process, is read through the other, image bytes included.
    const form = new FormData();
    form.set("title", "Shared apron");
    form.set("price", "12");
    form.set("product_type", "physical");
    form.append("images", new Blob([image]), "apron.png");
    const created = await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products`, { method: "POST", headers: auth(a), body: form });
    expect(created.status).toBe(201);
    const product = (await created.json()).data;
    const read = await fetch(`${b.LP_API_URL}/v1/accounts/${b.LP_ACCOUNT}/products/${product.id}`, { headers: auth(b) });
    expect(read.status).toBe(200);
    const imagePath = new URL(product.images[0].url).pathname;
    const served = await fetch(`${b.LP_API_URL}${imagePath}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);

    // Both sign list cursors with the one shared secret: a cursor from one is valid on the other.
    await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products`, {
      method: "POST",
      headers: { ...auth(a), "content-type": "application/json" },
      body: JSON.stringify({ title: "Second apron", price: 13, product_type: "physical" }),
    });
    const page = await (await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products?per_page=1`, { headers: auth(a) })).json();
    const next = await fetch(`${b.LP_API_URL}/v1/accounts/${b.LP_ACCOUNT}/products?per_page=1&cursor=${encodeURIComponent(page.pagination.next_cursor)}`, { headers: auth(b) });
    expect(next.status).toBe(200);
    expect((await next.json()).data.map((p: { id: string }) => p.id)).toEqual([product.id]);

    expect(readdirSync(join(cwd, ".lp"))).toEqual(["credentials.json"]);
    expect(JSON.parse(readFileSync(join(cwd, ".lp", "credentials.json"), "utf8")).token).toBe(a.LP_TOKEN);
    one.shutdown();
    two.shutdown();
    expect(await first).toBe(0);
    expect(await second).toBe(0);
  });

  it("keeps the admin key in the database: a later process without one serves it, one with another key exits 1 naming fingerprints", async () => {
    const url = await server.createDatabase();
    const args = ["serve", "--storage", "postgres", "--database-url", url, "--port", "0", "--print-env", "--quiet"];
    const keeper = createFakeIo({ cwd, env: { LP_ADMIN_KEY: "the-service-admin-key-0123456789abcdef" } });
    const running = main(args, keeper.io);
    await keeper.waitForStderr(/Ready at /);
    const plain = createFakeIo({ cwd: mkdtempSync(join(tmpdir(), "lp-serve-")), env: {} });
    const follower = main(args, plain.io);
    await plain.waitForStderr(/Ready at /);
    expect(plain.stdout).toContain("LP_ADMIN_KEY=the-service-admin-key-0123456789abcdef\n");
    const other = createFakeIo({ cwd: mkdtempSync(join(tmpdir(), "lp-serve-")), env: { LP_ADMIN_KEY: "a-different-admin-key-0123456789abcdef" } });
    expect(await main(args, other.io)).toBe(1);
    expect(other.stderr).toMatch(/fingerprint [0-9a-f]{12}\) is not the one this database keeps \(fingerprint [0-9a-f]{12}\)/);
    expect(other.stderr).not.toContain("a-different-admin-key");
    expect(other.stderr).not.toContain("the-service-admin-key");
    plain.shutdown();
    keeper.shutdown();
    expect(await follower).toBe(0);
    expect(await running).toBe(0);
    rmSync(plain.io.cwd, { recursive: true, force: true });
    rmSync(other.io.cwd, { recursive: true, force: true });
  });

  it.each([
    ["nothing listening", () => "postgres://postgres@127.0.0.1:1/lp", /PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/lp cannot be used: nothing accepts connections at 127\.0\.0\.1:1 \(ECONNREFUSED\)/],
    ["no such database", () => server.url("lp_no_such_database"), /database "lp_no_such_database" does not exist \(3D000\).*never falls back to another database/],
    ["no such user", () => `postgres://nobody:pw@127.0.0.1:${server.port}/postgres`, /PostgreSQL at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:\d+\/postgres cannot be used: the server refused user "nobody" \(28000/],
    ["no database in the URL", () => `postgres://postgres@127.0.0.1:${server.port}`, /names no database: add it to the path/],
  ])("%s: exit 1 with one line naming the URL (password masked) and the cause", async (_name, url, cause) => {
    const fake = createFakeIo({ cwd, env: {} });
    const code = await main(["serve", "--storage", "postgres", "--database-url", url(), "--port", "0", "--quiet"], fake.io);
    expect(code).toBe(1);
    expect(fake.stderr).toMatch(cause);
    expect(fake.stderr).not.toContain(":pw@");
    expect(fake.stderr).not.toMatch(/Ready at /);
  });
});
