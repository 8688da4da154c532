import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const HOUR = 3_600_000;
const SORTS = ["created_at", "-created_at", "updated_at", "-updated_at", "title", "-title", "price", "-price"] as const;

interface Listed {
  id: string;
  title: string;
  price: number;
  product_type: string;
  created_at: string;
  updated_at: string;
}

/** The order the API promises: the sort value (titles without case), then the id. */
function expectedOrder(items: Listed[], sort: string): string[] {
  const field = sort.replace(/^-/, "") as keyof Listed;
  const value = (p: Listed) => (field === "title" ? p.title.toLowerCase() : p[field]);
  const cmp = (a: Listed, b: Listed) => (value(a) < value(b) ? -1 : value(a) > value(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const sorted = [...items].sort(cmp);
  return (sort.startsWith("-") ? sorted.reverse() : sorted).map((p) => p.id);
}

for (const storage of testStorages()) {
  describe(`product lists (${storage})`, () => {
    let t: TestApp;
    let all: Listed[];
    beforeEach(async () => {
      t = await createTestApp({ storage, start: "2026-03-01T00:30:00.000Z" });
      all = [];
      for (let i = 0; i < 45; i++) {
        // Titles and prices repeat (ties are broken by id); case varies to prove sorting ignores it.
        const title = `${i % 2 ? "Blue" : "blue"} ${["Lamp", "chair", "DESK"][i % 3]} ${String(i % 9).padStart(2, "0")}`;
        const res = await t.call("POST", "products", { body: { title, price: (i * 7) % 13, product_type: i % 4 === 0 ? "service" : "physical" } });
        all.push(res.json.data);
        t.clock.advance(HOUR);
      }
      // Some products change later, so updated_at differs from created_at order.
      for (const i of [3, 40, 17, 0]) {
        const res = await t.call("PATCH", `products/${all[i].id}`, { body: { description: `edited ${i}` } });
        all[i] = res.json.data;
        t.clock.advance(HOUR);
      }
    });
    afterEach(async () => {
      await t.close();
    });

    async function walk(query: string, perPage: number, between?: (page: number, seen: string[]) => Promise<void>) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 100; page++) {
        const q = `products?${query}&per_page=${perPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const res = await t.call("GET", q);
        expect(res.status, res.text).toBe(200);
        expect(res.json.data.length).toBeLessThanOrEqual(perPage);
        seen.push(...res.json.data.map((p: Listed) => p.id));
        const { next_cursor, has_more } = res.json.pagination;
        expect(has_more).toBe(next_cursor !== null);
        expect(res.headers.get("link") !== null).toBe(has_more);
        if (!has_more) return seen;
        cursor = next_cursor;
        await between?.(page, seen);
      }
      throw new Error("pagination did not end");
    }

    it.each(SORTS)("visits every product once, in order, sorted by %s", async (sort) => {
      for (const perPage of [1, 7, 45, 100]) {
        expect(await walk(`sort=${sort}`, perPage)).toEqual(expectedOrder(all, sort));
      }
    });

    it.each(SORTS)("stays stable under inserts and deletes between pages, sorted by %s", async (sort) => {
      const deleted = new Set<string>();
      const seen = await walk(`sort=${sort}`, 6, async (page, sofar) => {
        await t.call("POST", "products", { body: { title: `Inserted ${page}`, price: page % 13, product_type: "physical" } });
        await t.call("POST", "products", { body: { title: `aaa ${page}`, price: 0, product_type: "physical" } });
        t.clock.advance(1000);
        if (page === 2) {
          // The product the cursor points at goes away: the walk must go on from where it was.
          const victim = sofar[sofar.length - 1];
          deleted.add(victim);
          expect((await t.call("DELETE", `products/${victim}`)).status).toBe(204);
        }
      });
      expect(new Set(seen).size).toBe(seen.length);
      const original = expectedOrder(all, sort);
      expect(seen.filter((id) => original.includes(id))).toEqual(original);
      expect(deleted.size).toBe(1);
    });

    it("defaults to 20 newest first and enforces per_page bounds", async () => {
      const res = await t.call("GET", "products");
      expect(res.json.data.map((p: Listed) => p.id)).toEqual(expectedOrder(all, "-created_at").slice(0, 20));
      expect(res.json.data[0].images).toBeUndefined();
      for (const bad of ["0", "101", "abc", "-1", "1.5", "", "1e3"]) {
        const err = expectError(await t.call("GET", `products?per_page=${bad}`), 400, "validation_error");
        expect(err.details.issues.map((i: { path: string }) => i.path)).toEqual(["per_page"]);
      }
      expect((await t.call("GET", "products?per_page=1")).json.data).toHaveLength(1);
      expect((await t.call("GET", "products?per_page=100")).json.data).toHaveLength(45);
      for (const bad of ["sort=name", "sort=--price", "sort=slug", "product_type=digital", "created_after=yesterday", "created_before=2026-13-01"]) {
        expectError(await t.call("GET", `products?${bad}`), 400, "validation_error");
      }
    });

    it("follows the Link rel=next header to the same pages as the cursor", async () => {
      let path: string | null = `${t.account}/products?sort=price&per_page=10&product_type=physical`;
      const seen: string[] = [];
      while (path) {
        const res = await t.call("GET", path);
        seen.push(...res.json.data.map((p: Listed) => p.id));
        const link = res.headers.get("link");
        path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : null;
        if (path) expect(new URL(path, "http://x").searchParams.get("cursor")).toBe(res.json.pagination.next_cursor);
      }
      expect(seen).toEqual(expectedOrder(all.filter((p) => p.product_type === "physical"), "price"));
    });

    it("binds a cursor to its sort and filters, and refuses tampered ones", async () => {
      const first = await t.call("GET", "products?sort=title&per_page=5&q=blue");
      const cursor: string = first.json.pagination.next_cursor;
      const enc = encodeURIComponent(cursor);
      expect((await t.call("GET", `products?sort=title&per_page=9&q=blue&cursor=${enc}`)).status).toBe(200);
      for (const other of ["sort=-title&q=blue", "q=blue", "sort=title", "sort=title&q=BLUE", "sort=title&q=blue&product_type=physical", "sort=title&q=blue&created_after=2026-01-01"]) {
        expectError(await t.call("GET", `products?${other}&cursor=${enc}`), 400, "invalid_cursor");
      }
      const [body, sig] = cursor.split(".");
      const flipped = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
      const forged = Buffer.from(JSON.stringify(["zzz", "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", "x"])).toString("base64url");
      for (const bad of [flipped(body, 3), `${body}.${flipped(sig, 0)}`, `${forged}.${sig}`, body, `${cursor}.x`, "garbage", "....", "a".repeat(1025)]) {
        expectError(await t.call("GET", `products?sort=title&q=blue&cursor=${encodeURIComponent(bad)}`), 400, bad.length > 1024 ? "validation_error" : "invalid_cursor");
      }
    });

    it("refuses a query parameter it does not take, naming those it does", async () => {
      const res = await t.call("GET", "products?sortt=title&per_page=2");
      expectError(res, 400, "validation_error");
      const accepted = "cursor, per_page, sort, product_type, q, created_after, created_before";
      expect(res.json.error.message).toBe(`Unknown query parameter 'sortt'; this operation accepts: ${accepted}.`);
      expect(res.json.error.details.issues).toEqual([{ path: "sortt", code: "unrecognized_keys", message: `not a query parameter of this operation; accepted: ${accepted}` }]);
      // Every list route is closed the same way, and the document lists exactly what each accepts.
      const doc = await (await t.app.request("/v1/openapi.json")).json();
      const lists = ["products", "pages", `pages/${crypto.randomUUID()}/deployments`];
      for (const path of lists) {
        const refused = await t.call("GET", `${path}?per_page=1&unknown_name=1`);
        expectError(refused, 400, "validation_error");
        const template = `/v1/accounts/{account_id}/${path.replace(/pages\/[^/]+\//, "pages/{id}/")}`;
        const names = doc.paths[template].get.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name);
        expect(refused.json.error.message).toContain(`accepts: ${names.join(", ")}.`);
        expect(doc.paths[template].get.responses["400"].description).toContain("a query parameter not listed here is refused");
      }
    });

    it("searches title and description without regard to case", async () => {
      const lamps = all.filter((p) => /lamp/i.test(p.title)).map((p) => p.id);
      for (const q of ["lamp", "LAMP", "LaMp", "e lamp"]) {
        const ids = await walk(`q=${encodeURIComponent(q)}`, 100);
        expect(ids.sort()).toEqual(q === "e lamp" ? all.filter((p) => /e lamp/i.test(p.title)).map((p) => p.id).sort() : [...lamps].sort());
      }
      expect(await walk("q=EDITED%2040", 100)).toEqual([all[40].id]);
      expect(await walk("q=nothing-matches", 100)).toEqual([]);
    });

    it("filters by product_type", async () => {
      expect((await walk("product_type=service", 5)).sort()).toEqual(all.filter((p) => p.product_type === "service").map((p) => p.id).sort());
      expect((await walk("product_type=physical&q=desk", 5)).sort()).toEqual(
        all.filter((p) => p.product_type === "physical" && /desk/i.test(p.title)).map((p) => p.id).sort(),
      );
    });

    it("bounds created_at exclusively, with dates and date-times", async () => {
      const byCreated = [...all].sort((a, b) => a.created_at.localeCompare(b.created_at));
      const ids = (from: number, to: number) => byCreated.slice(from, to).map((p) => p.id).sort();
      const at = (i: number) => byCreated[i].created_at;
      expect((await walk(`created_after=${at(10)}`, 100)).sort()).toEqual(ids(11, 45));
      expect((await walk(`created_before=${at(10)}`, 100)).sort()).toEqual(ids(0, 10));
      expect((await walk(`created_after=${at(10)}&created_before=${at(14)}`, 100)).sort()).toEqual(ids(11, 14));
      expect(await walk(`created_after=${at(10)}&created_before=${at(11)}`, 100)).toEqual([]);
      // Products are an hour apart from 00:30 on March 1st: 24 of them fall on that day.
      expect((await walk("created_before=2026-03-02", 100)).sort()).toEqual(ids(0, 24));
      expect((await walk("created_after=2026-03-02", 100)).sort()).toEqual(ids(24, 45));
      const offset = encodeURIComponent("2026-03-01T12:00:00+02:00");
      expect((await walk(`created_before=${offset}`, 100)).sort()).toEqual(ids(0, 10));
      expect((await walk("created_after=2026-03-01T10:30:00Z", 100)).sort()).toEqual(ids(11, 45));
    });
  });
}
