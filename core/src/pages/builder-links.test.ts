import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCore, type Core } from "../core.js";
import { openDatabase } from "../db/database.js";
import { createManualClock } from "../deps.js";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../testing/postgres-server.js";
import { useRestarts } from "../testing/restarts.js";
import { createBuilderLinks } from "./builder-links.js";

const PAGE = "6f1c2f1e-8a4b-4c3d-9e2f-0a1b2c3d4e5f";
const OTHER = "0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a";
const T0 = "2026-05-01T00:00:00.000Z";

/** The `expires` and `sig` of a builder link. */
const partsOf = (link: string) => {
  const url = new URL(link);
  return [url.searchParams.get("expires"), url.searchParams.get("sig")] as const;
};

describe("builder links", () => {
  const clock = createManualClock("2026-05-01T00:10:00.000Z");
  const links = createBuilderLinks({ secret: Buffer.alloc(32, 7), clock, publicUrl: () => "http://lp.test" });

  it("signs the page id and an expiry a day away, rounded up to the hour, and opens only that page until then", () => {
    const link = links.url(PAGE);
    expect(link).toMatch(new RegExp(`^http://lp\\.test/builder/${PAGE}\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    const [expires, sig] = partsOf(link);
    expect(new Date(Number(expires) * 1000).toISOString()).toBe("2026-05-02T01:00:00.000Z");
    expect(links.verify(PAGE, expires, sig)).toBe(true);
    expect(links.verify(OTHER, expires, sig)).toBe(false);
    expect(links.verify(PAGE, String(Number(expires) + 3600), sig)).toBe(false);
    expect(links.verify(PAGE, expires, `${sig!.slice(0, -1)}${sig!.endsWith("A") ? "B" : "A"}`)).toBe(false);
    expect(links.verify(PAGE, null, sig)).toBe(false);
    expect(links.verify(PAGE, "9".repeat(100_000), sig)).toBe(false);
    clock.advance(30 * 60 * 1000);
    expect(links.url(PAGE)).toBe(link); // the same link for the rest of the hour
    clock.set(new Date(Number(expires) * 1000));
    expect(links.verify(PAGE, expires, sig)).toBe(false);
  });

  it("refuses a link signed with another key", () => {
    const other = createBuilderLinks({ secret: Buffer.alloc(32, 8), clock, publicUrl: () => "http://lp.test" });
    const [expires, sig] = partsOf(other.url(PAGE));
    expect(links.verify(PAGE, expires, sig)).toBe(false);
  });
});

describe("the builder key survives a restart", () => {
  const restarts = useRestarts();
  it("a link signed before a restart opens after it", async () => {
    const dir = restarts.folder("lp-builder-");
    const before = await restarts.open(dir);
    const link = before.pages.builderUrl(PAGE);
    await restarts.shut(before);
    const after = await restarts.open(dir);
    expect(after.pages.builderUrl(PAGE)).toBe(link);
    expect(after.pages.verifyBuilderLink(PAGE, ...partsOf(link))).toBe(true);
  });
});

if (!postgresAvailable) console.warn(postgresSkipReason("the shared builder key suite"));

describe.skipIf(!postgresAvailable)("the builder key is shared by the processes of one database", () => {
  let server: PostgresServer | undefined;
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterAll(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
    await server?.dispose();
  });

  /** A core of a process of its own: its own pool on the shared database. */
  const open = async (url: string): Promise<Core> => {
    const database = await openDatabase({ kind: "postgres", url });
    opened.push(database);
    const core = await createCore({ database, clock: createManualClock(T0), publicUrl: () => "http://lp.test" });
    opened.push(core);
    return core;
  };

  it("a link one process signs opens on another", async () => {
    const url = await server!.createDatabase();
    // The first migrates the database; then both start together.
    await (await openDatabase({ kind: "postgres", url })).close();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const link = a.pages.builderUrl(PAGE);
    expect(b.pages.builderUrl(PAGE)).toBe(link);
    expect(b.pages.verifyBuilderLink(PAGE, ...partsOf(link))).toBe(true);
  });
});
