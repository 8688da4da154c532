import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions } from "./requests.js";

const io = { io: { env: {} } } as never;

describe("requests: parsing", () => {
  it("checks the method, status, since and counts", () => {
    expect(toOptions({ args: [], flags: { method: "post", status: "4XX", since: "10m" } }, io).filter).toEqual({ method: "POST", path: undefined, status: "4xx", since: "10m" });
    expect(toOptions({ args: [], flags: { since: "2026-03-01T10:00:00+01:00" } }, io).filter.since).toBe("2026-03-01T09:00:00.000Z");
    expect(() => toOptions({ args: [], flags: { status: "600" } }, io)).toThrow(/--status/);
    expect(() => toOptions({ args: [], flags: { method: "GET X" } }, io)).toThrow(/--method/);
    expect(() => toOptions({ args: [], flags: { since: "yesterday" } }, io)).toThrow(/--since/);
    expect(() => toOptions({ args: [], flags: { expect: "0" } }, io)).toThrow(/--expect/);
  });
});

describe("requests: the command against the app", () => {
  let h: Harness;
  afterEach(() => h.close());
  const createProduct = (title: string) => h.app.call("POST", "products", { body: { title, price: 1, product_type: "service" } });

  it("lists matching requests newest first, as lines or JSON", async () => {
    h = await createHarness();
    await createProduct("One");
    await h.app.call("GET", "products?per_page=3");
    await h.app.call("GET", "products/prod_none");
    const lines = (await h.lp(["requests", "--path", "*/products*"])).stdout.trim().split("\n");
    expect(lines.map((l) => l.split(" ").slice(2, 5).join(" "))).toEqual([
      `GET ${h.app.account}/products/prod_none 404`,
      `GET ${h.app.account}/products?per_page=3 200`,
      `POST ${h.app.account}/products 201`,
    ]);
    const posted = (await h.lp(["requests", "--method", "post", "--json"])).json();
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0].request.body).title).toBe("One");
    expect((await h.lp(["requests", "--status", "4xx", "--json"])).json().map((e: { status: number }) => e.status)).toEqual([404]);
    const none = await h.lp(["requests", "--method", "PUT"]);
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toContain("No matching requests");
  });

  it("--expect exits 0 once N matching requests were answered, counting earlier ones, and 1 after the timeout", async () => {
    h = await createHarness();
    await createProduct("Early");
    const waiting = h.lp(["requests", "--method", "POST", "--path", "*/products", "--expect", "3", "--timeout", "1m", "--json"]);
    await createProduct("Second");
    await h.app.call("GET", "products");
    await createProduct("Third");
    const done = await waiting;
    expect(done.code).toBe(0);
    expect(done.stdout.trim().split("\n").map((l) => JSON.parse(JSON.parse(l).request.body).title)).toEqual(["Early", "Second", "Third"]);
    const unmet = await h.lp(["requests", "--method", "DELETE", "--expect", "1", "--timeout", "50ms"]);
    expect(unmet.code).toBe(1);
    expect(unmet.stderr).toContain("0 of 1 matching requests answered within 50 ms");
  });

  it("--follow prints only what is answered from then on, in order of arrival, until stopped", async () => {
    h = await createHarness();
    await createProduct("Before");
    // Each read of the journal the command makes, seen as it returns: the test moves on only once it has read.
    const reads: Array<(text: string) => void> = [];
    const nextRead = (until: (text: string) => boolean) => new Promise<void>((resolve) => reads.push((text) => until(text) && resolve()));
    const fetch: typeof h.fetch = async (input, init) => {
      const res = await h.fetch(input, init);
      if ((input instanceof Request ? input.url : String(input)).includes("/_admin/requests")) {
        const text = await res.clone().text();
        for (const read of reads) read(text);
      }
      return res;
    };
    const fake = createFakeIo({ cwd: h.home, env: h.env });
    const baseline = nextRead(() => true);
    const following = main(["requests", "--follow", "--method", "POST", "--json"], fake.io, { fetch });
    await baseline;
    const printed = nextRead((text) => text.includes("Later"));
    await createProduct("After");
    await h.app.call("GET", "products");
    await createProduct("Later");
    await printed;
    fake.shutdown();
    expect(await following).toBe(0);
    expect(fake.stdout.trim().split("\n").map((l) => JSON.parse(JSON.parse(l).request.body).title)).toEqual(["After", "Later"]);
  });
});
