import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CURRENT_FORMAT, fsDoctorSource, runDoctor } from "@lp/core";
import { startServer } from "@lp/server";
import { afterAll, describe, expect, it } from "vitest";
import { redisAdmin } from "../../core/src/testing/redis-admin.js";
import { redisAvailable, redisSkipReason, startRedisServer } from "../../core/src/testing/redis-server.js";

if (!redisAvailable) console.warn(redisSkipReason("the format marker on Redis"));

/**
 * Every format lp has released keeps a small data dir here (written by make-data-dir.ts): today's lp must
 * open each, migrating or reading it as it is, and serve what it holds.
 */
const root = new URL("./data-dirs/", import.meta.url).pathname;
const formats = readdirSync(root).filter((name) => /^format-\d+$/.test(name));
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A copy of a committed data dir, with the owner-only modes lp gives its files (git keeps no modes). */
function copyOf(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `lp-${name}-`));
  temps.push(dir);
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

describe("data dirs of every released format", () => {
  it("include today's format", () => {
    expect(formats).toContain(`format-${CURRENT_FORMAT}`);
  });

  it.each(formats)("%s opens in today's lp and serves its products, page, site and media", async (name) => {
    const dir = copyOf(name);
    const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp test" });
    try {
      const account = server.credentials.account_id;
      const auth = { headers: { authorization: `Bearer ${server.credentials.token}` } };
      const products = await fetch(`${server.url}/v1/accounts/${account}/products`, auth);
      expect(products.status).toBe(200);
      const list = (await products.json()) as { data: Array<{ id: string; title: string }> };
      expect(list.data.map((p) => p.title).sort()).toEqual(["Ceramics class", "Linen apron"]);
      const apron = list.data.find((p) => p.title === "Linen apron")!;
      const one = (await (await fetch(`${server.url}/v1/accounts/${account}/products/${apron.id}`, auth)).json()) as { data: { images: Array<{ url: string }> } };
      const media = await fetch(one.data.images[0]!.url.replace(/^https?:\/\/[^/]+/, server.url));
      expect(media.status).toBe(200);
      expect(media.headers.get("content-type")).toBe("image/png");
      const pages = await server.core.pages.list(account, { sort: "-created_at", per_page: 20 } as never);
      expect(pages.data).toHaveLength(1);
      const site = await fetch(pages.data[0]!.deployed_url!.replace(/^https?:\/\/[^/]+/, server.url));
      expect(site.status).toBe(200);
      expect(await site.text()).toContain("Linen apron");
    } finally {
      await server.close();
    }
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(CURRENT_FORMAT);
    const report = await runDoctor(fsDoctorSource(dir), { fix: false, writtenBy: "lp test" });
    expect(report.problems).toEqual([]);
  });
});

describe("the format marker", () => {
  it("is written at the first start of a new data dir", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-new-format-"));
    temps.push(dir);
    await (await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp 9.9.9" })).close();
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: CURRENT_FORMAT, written_by: "lp 9.9.9" });
  });

  it("is added to a data dir written before markers existed, which is read as it is", async () => {
    const dir = copyOf(`format-${CURRENT_FORMAT}`);
    rmSync(join(dir, "format.json"));
    const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp test" });
    try {
      expect((await server.core.products.list(server.credentials.account_id, { sort: "-created_at", per_page: 20 } as never)).data).toHaveLength(2);
    } finally {
      await server.close();
    }
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(CURRENT_FORMAT);
  });

  it("of a newer format makes lp refuse to start, saying to upgrade, and leaves the data dir as it was", async () => {
    const dir = copyOf(`format-${CURRENT_FORMAT}`);
    const newer = `{"format": ${CURRENT_FORMAT + 1}, "written_by": "lp 99.0.0"}\n`;
    writeFileSync(join(dir, "format.json"), newer);
    await expect(startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: "lp 1.0.0" })).rejects.toThrow(
      `${dir} is in format ${CURRENT_FORMAT + 1} (written by lp 99.0.0); this lp (lp 1.0.0) reads format ${CURRENT_FORMAT} and older. Upgrade lp to open it.`,
    );
    expect(readFileSync(join(dir, "format.json"), "utf8")).toBe(newer);
    // The refusal releases the data dir: a newer lp can open it at once.
    expect(readdirSync(dir)).not.toContain("lp.lock");
  });
});

describe.skipIf(!redisAvailable)("the format marker on Redis", () => {
  it("is the meta:format key under the prefix, written at first start; a newer one makes lp refuse to start", async () => {
    const redis = await startRedisServer({ appendfsync: "no" });
    const admin = redisAdmin(redis.url);
    try {
      await (await startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "fmt:", port: 0, log: null, admin: false, writtenBy: "lp 9.9.9" })).close();
      expect(JSON.parse(String(await admin.call("GET", "fmt:meta:format")))).toEqual({ format: CURRENT_FORMAT, written_by: "lp 9.9.9" });
      await admin.call("SET", "fmt:meta:format", JSON.stringify({ format: CURRENT_FORMAT + 1, written_by: "lp 99.0.0" }));
      await expect(startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "fmt:", port: 0, log: null, admin: false, writtenBy: "lp 1.0.0" })).rejects.toThrow(
        /\(prefix fmt:\) is in format \d+ \(written by lp 99\.0\.0\); this lp \(lp 1\.0\.0\) reads format \d+ and older\. Upgrade lp to open it\./,
      );
    } finally {
      admin.close();
      await redis.dispose();
    }
  });
});
