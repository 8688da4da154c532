import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createOffsetClock, DATA_DIR_FORMAT, runDatabaseDoctor } from "@lp/core";
import { startServer, type RunningServer } from "@lp/server";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../../core/src/testing/temp-dirs.js";

/**
 * Every format lp has released keeps a data dir here (written by make-data-dir.ts, facts in
 * `format-N.expected.json`): today's lp must open each (`openDataDir`, through `lp serve`'s start), migrating
 * it to format 3 if it is older, and serve all it holds. `format-1-killed` is format 1 as a SIGKILLed lp left
 * it, one product still only in its write-ahead log.
 */
const root = new URL("./data-dirs/", import.meta.url).pathname;
const formats = readdirSync(root).filter((name) => /^format-\d+(-killed)?$/.test(name));
/** The committed dir of the newest format. */
const newest = formats.filter((name) => !name.endsWith("-killed")).sort((a, b) => Number(a.slice(7)) - Number(b.slice(7))).at(-1)!;
const tempDir = useTempDirs();

interface Expected {
  /** Just after the dir's last write: its server runs on a clock that starts here, never on today's date. */
  written_at: string;
  account: string;
  products: number;
  with_images?: Record<string, number>;
  deleted?: string;
  idempotency_key?: string;
  idempotent_product?: string;
  slug?: string;
  endpoint?: string;
  deliveries?: number;
  written_before_kill?: string[];
}
const expectedOf = (name: string): Expected => JSON.parse(readFileSync(join(root, `${name}.expected.json`), "utf8")) as Expected;

/** A copy of a committed data dir, with the owner-only modes lp gives its files (git keeps no modes). */
function copyOf(name: string): string {
  const dir = tempDir(name);
  cpSync(join(root, name), dir, { recursive: true });
  const tighten = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const inner = join(path, entry.name);
      chmodSync(inner, entry.isDirectory() ? 0o700 : 0o600);
      if (entry.isDirectory()) tighten(inner);
    }
  };
  tighten(dir);
  return dir;
}

/** Every item of a paginated list, following `next_cursor` to the end. */
async function all<T>(server: RunningServer, path: string, headers: Record<string, string>): Promise<T[]> {
  const items: T[] = [];
  for (let cursor: string | null = ""; cursor !== null; ) {
    const answer = await fetch(`${server.url}${path}?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers });
    expect(answer.status, path).toBe(200);
    const body = (await answer.json()) as { data: T[]; pagination: { next_cursor: string | null } };
    items.push(...body.data);
    cursor = body.pagination.next_cursor;
  }
  return items;
}

const local = (server: RunningServer, url: string) => url.replace(/^https?:\/\/[^/]+/, server.url);

describe("data dirs of every released format", () => {
  it("include every format released before today's and a format-1 dir left by a kill", () => {
    const released = Array.from({ length: DATA_DIR_FORMAT - 1 }, (_, i) => `format-${i + 1}`);
    expect(formats).toEqual(expect.arrayContaining([...released, "format-1-killed"]));
  });

  it.each(formats)("%s opens in today's lp and serves every product, image, idempotent answer, site and delivery", async (name) => {
    const facts = expectedOf(name);
    const dir = copyOf(name);
    const logged: string[] = [];
    // What the dir holds was written at `written_at` (its Idempotency-Key answers replay for 24 h from then): the
    // server opens it on a clock that starts there, so the test answers the same on any day it runs.
    const clock = createOffsetClock(facts.written_at);
    const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp test", storageLog: (line) => logged.push(line), clock });
    try {
      const account = server.credentials.account_id;
      const auth = { authorization: `Bearer ${server.credentials.token}` };
      const products = await all<{ id: string; title: string }>(server, `/v1/accounts/${account}/products`, auth);
      expect(products).toHaveLength(facts.products);
      for (const id of facts.written_before_kill ?? []) expect(products.map((p) => p.id)).toContain(id);
      if (facts.deleted) expect((await fetch(`${server.url}/v1/accounts/${account}/products/${facts.deleted}`, { headers: auth })).status).toBe(404);
      const image = readFileSync(new URL("../../fixtures/images/coffee-set.png", import.meta.url));
      for (const [title, count] of Object.entries(facts.with_images ?? {})) {
        const id = products.find((p) => p.title === title)!.id;
        const one = (await (await fetch(`${server.url}/v1/accounts/${account}/products/${id}`, { headers: auth })).json()) as { data: { images: Array<{ url: string }> } };
        expect(one.data.images).toHaveLength(count);
        for (const { url } of one.data.images) {
          const media = await fetch(local(server, url));
          expect(media.headers.get("content-type")).toBe("image/png");
          expect(Buffer.from(await media.arrayBuffer()).equals(image)).toBe(true);
        }
      }
      if (facts.idempotency_key) {
        const replay = await fetch(`${server.url}/v1/accounts/${account}/products`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", "idempotency-key": facts.idempotency_key },
          body: JSON.stringify({ title: "Gift card", price: 25, product_type: "service" }),
        });
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(((await replay.json()) as { data: { id: string } }).data.id).toBe(facts.idempotent_product);
      }
      if (facts.slug) {
        const site = await fetch(`${server.url}/sites/${account}/${facts.slug}/`);
        expect(site.status).toBe(200);
        expect(await site.text()).toContain("Linen apron");
      }
      if (facts.endpoint) {
        const basic = { authorization: `Basic ${Buffer.from(`${server.credentials.application_id}:${server.credentials.client_secret}`).toString("base64")}` };
        const endpoint = (await (await fetch(`${server.url}/v1/developer/webhook-endpoints/${facts.endpoint}`, { headers: basic })).json()) as { data: { status: string } };
        expect(endpoint.data.status).toBe("active");
        const deliveries = await all<{ status: string }>(server, `/v1/developer/webhook-endpoints/${facts.endpoint}/deliveries`, basic);
        expect(deliveries).toHaveLength(facts.deliveries!);
        expect(deliveries.every((d) => d.status === "succeeded")).toBe(true);
      }
    } finally {
      await server.close();
    }
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(DATA_DIR_FORMAT);
    if (!name.startsWith(`format-${DATA_DIR_FORMAT}`)) {
      // The format-2 database is kept aside by a hard link, never deleted, and one line says where and how to remove it.
      expect(existsSync(join(dir, "format-2", "lp.db"))).toBe(true);
      expect(logged.some((line) => line.includes(`kept as ${join(dir, "format-2", "lp.db")}`) && line.includes(`rm -rf '${join(dir, "format-2")}'`))).toBe(true);
    }
    if (name.startsWith("format-1")) {
      // The old files are kept aside, never deleted, and one line says where and how to remove them.
      expect(readdirSync(join(dir, "format-1")).sort()).toEqual(expect.arrayContaining(["data", "media"]));
      expect(existsSync(join(dir, "data"))).toBe(false);
      expect(logged.some((line) => line.includes(`kept in ${join(dir, "format-1")}`) && line.includes(`rm -rf '${join(dir, "format-1")}'`))).toBe(true);
    }
    const report = await runDatabaseDoctor(dir, { fix: false, writtenBy: "lp test" });
    expect(report.format).toBe(DATA_DIR_FORMAT);
    expect(report.problems).toEqual([]);
  });
});

describe("the format marker", () => {
  it("is written at the first start of a new data dir", async () => {
    const dir = tempDir("new-format");
    await (await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp 9.9.9" })).close();
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: DATA_DIR_FORMAT, written_by: "lp 9.9.9" });
  });

  it("is added to a format-1 data dir written before markers existed, which is migrated", async () => {
    const dir = copyOf("format-1");
    renameSync(join(dir, "format.json"), join(dir, "format.json.removed"));
    const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp test", storageLog: () => {} });
    try {
      expect((await server.core.products.list(server.credentials.account_id, { sort: "-created_at", per_page: 100 } as never)).data).toHaveLength(100);
    } finally {
      await server.close();
    }
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(DATA_DIR_FORMAT);
  });

  it("of a newer format makes lp refuse to start, saying to upgrade, and leaves the data dir as it was", async () => {
    const dir = copyOf(newest);
    const before = readFileSync(join(dir, "lp.db"));
    const newer = `{"format": ${DATA_DIR_FORMAT + 1}, "written_by": "lp 99.0.0"}\n`;
    writeFileSync(join(dir, "format.json"), newer);
    await expect(startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp 1.0.0" })).rejects.toThrow(
      `${dir} is in format ${DATA_DIR_FORMAT + 1} (written by lp 99.0.0); this lp (lp 1.0.0) reads format ${DATA_DIR_FORMAT} and older. Upgrade lp to open it.`,
    );
    expect(readFileSync(join(dir, "format.json"), "utf8")).toBe(newer);
    expect(readFileSync(join(dir, "lp.db")).equals(before)).toBe(true);
    // Refused before anything is written there: not even the data dir's lock.
    expect(readdirSync(dir).sort()).toEqual(readdirSync(join(root, newest)).sort());
    expect(readdirSync(dir)).not.toContain("lp.lock");
  });
});
