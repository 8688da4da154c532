import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../runtime/events.js";
import { spawnLp, startServe, type Served } from "./processes.js";

describe("lp trigger (built) against lp serve, with lp listen receiving", () => {
  let s: Served;
  beforeAll(async () => {
    s = await startServe();
  });
  afterAll(async () => {
    await s.stop();
  });

  it("lists every event with what it does", async () => {
    const listed = await s.lp(["trigger", "--list", "--json"]);
    expect(listed.code).toBe(0);
    expect(listed.json().map((row: { event: string }) => row.event)).toEqual([...EVENT_TYPES]);
    const help = await s.lp(["trigger", "--help"]);
    expect(help.stdout).toContain("--override <path=value>");
    expect(help.stdout).toContain("product.title=");
  });

  it("causes each of the events, which arrive signed at a registered lp listen", async () => {
    const expectations = EVENT_TYPES.flatMap((type) => ["--expect", type]);
    const listen = spawnLp(["listen", "--register", ...expectations, "--timeout", "2m", "--json"], { env: s.env, cwd: s.sandbox.dir });
    await listen.waitFor("stderr", /Ready: receiving webhooks at /);
    // All at once, as separate scripts would: each makes its own resources, and the eleven processes wait on the
    // server together rather than one after the other.
    const runs = await Promise.all(EVENT_TYPES.map(async (event) => ({ event, run: await s.lp(["trigger", event]) })));
    for (const { event, run } of runs) {
      expect({ event, code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
      expect(run.stderr).toContain(`Triggered ${event}.`);
    }
    expect(await listen.exited).toBe(0);
    const received = new Set(listen.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((r) => r.verified).map((r) => r.type));
    for (const event of EVENT_TYPES) expect(received).toContain(event);
  });

  it("applies --override by dot path and prints what it made with --json", async () => {
    const listen = spawnLp(["listen", "--register", "--events", "checkout.submitted", "--expect", "checkout.submitted", "--json"], { env: s.env, cwd: s.sandbox.dir });
    await listen.waitFor("stderr", /Ready: receiving webhooks at /);
    const made = await s.lp(["trigger", "checkout.submitted", "--override", "product.title=Blue Apron", "--override", "product.price=19.5", "--override", "checkout.name=Grace Hopper", "--json"]);
    expect(made.code).toBe(0);
    const out = made.json();
    expect(out).toMatchObject({ event: "checkout.submitted", product: { title: "Blue Apron", price: 19.5 }, deployment: { status: "succeeded" }, checkout: { status: 200 } });
    expect(out.product.images).toHaveLength(1);
    expect(out.page.id).toBe(out.deployment.page_id);
    expect(out.checkout.values).toMatchObject({ name: "Grace Hopper", email: "ada@example.com" });
    expect(await listen.exited).toBe(0);
    const record = listen.stdout.trim().split("\n").map((line) => JSON.parse(line)).find((r) => r.type === "checkout.submitted");
    expect(record.event.data).toMatchObject({ page_id: out.page.id, values: { name: "Grace Hopper" } });
  });

  it("refuses an unknown event or a malformed override with exit 2", async () => {
    const unknown = await s.lp(["trigger", "product.exploded"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("lp trigger --list");
    const bad = await s.lp(["trigger", "product.created", "--override", "__proto__.x=1"]);
    expect(bad.code).toBe(2);
    expect((await s.lp(["trigger", "product.created", "--override", "nowhere.x=1"])).stderr).toContain("not a fixture section");
  });
});
