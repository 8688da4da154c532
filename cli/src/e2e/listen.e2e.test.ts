import { sign } from "@lp/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, createSandbox, spawnLp, startServe, type Served } from "./processes.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function deliver(url: string, type: string, id: string) {
  const body = JSON.stringify({ id: `evt_${id}`, type, timestamp: new Date().toISOString(), account_id: "acct_dev", environment: "production", data: {} });
  const response = await fetch(url, { method: "POST", body, headers: { ...sign({ id, timestamp: new Date(), body, secrets: SECRET }), "content-type": "application/json" } });
  return response.status;
}

describe("lp listen (built)", () => {
  it("verifies a signed delivery and exits 0 once --expect is met", async () => {
    assertBuilt();
    const sandbox = createSandbox();
    try {
      const proc = spawnLp(["listen", "--secret", SECRET, "--expect", "product.created", "--json"], { env: sandbox.env, cwd: sandbox.dir });
      const [, url] = await proc.waitFor("stderr", /Ready: receiving webhooks at (\S+)/);
      expect(await deliver(url, "product.created", "msg_e2e")).toBe(200);
      expect(await proc.exited).toBe(0);
      expect(JSON.parse(proc.stdout.trim())).toMatchObject({ webhook_id: "msg_e2e", type: "product.created", verified: true, status: 200 });
    } finally {
      sandbox.remove();
    }
  });

  it("exits 1 at --timeout with a summary of what arrived", async () => {
    const sandbox = createSandbox();
    try {
      const proc = spawnLp(["listen", "--secret", SECRET, "--expect", "page.created:2", "--timeout", "300ms"], { env: sandbox.env, cwd: sandbox.dir });
      const [, url] = await proc.waitFor("stderr", /Ready: receiving webhooks at (\S+)/);
      expect(await deliver(url, "page.created", "msg_one")).toBe(200);
      expect(await proc.exited).toBe(1);
      expect(proc.stderr).toContain("Expectations not met: page.created 1/2. Received 1 request(s); verified events: page.created ×1 (1 acknowledged).");
    } finally {
      sandbox.remove();
    }
  });

  describe("--register against lp serve", () => {
    let s: Served;
    beforeAll(async () => {
      s = await startServe(["--retry-schedule", "0,100ms,100ms,100ms"]);
    });
    afterAll(async () => {
      await s.stop();
    });

    it("registers itself, receives the signed event, exits 0 and deletes the endpoint", async () => {
      const proc = spawnLp(["listen", "--register", "--events", "product.created", "--expect", "product.created", "--json"], { env: s.env, cwd: s.sandbox.dir });
      await proc.waitFor("stderr", /Ready: receiving webhooks at /);
      expect((await s.lp(["products", "create", "--title", "Hooked", "--price", "5", "--type", "service"])).code).toBe(0);
      expect(await proc.exited).toBe(0);
      const record = JSON.parse(proc.stdout.trim().split("\n").at(-1)!);
      expect(record).toMatchObject({ type: "product.created", verified: true, status: 200, event: { data: { title: "Hooked" } } });
      expect(proc.stderr).toMatch(/Deleted endpoint we_/);
      expect((await s.lp(["webhooks", "list", "--json"])).json()).toEqual([]);
    });

    it("--expect waits for the 2xx of a retried message, not its first failed attempt", async () => {
      const proc = spawnLp(["listen", "--register", "--respond", "500,500,200", "--expect", "product.created:1", "--json"], { env: s.env, cwd: s.sandbox.dir });
      await proc.waitFor("stderr", /Ready: receiving webhooks at /);
      expect((await s.lp(["products", "create", "--title", "Retried", "--price", "5", "--type", "service"])).code).toBe(0);
      expect(await proc.exited).toBe(0);
      const records = proc.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((r) => r.type === "product.created");
      expect(records.map((r) => [r.type, r.status])).toEqual([["product.created", 500], ["product.created", 500], ["product.created", 200]]);
      expect(new Set(records.map((r) => r.webhook_id)).size).toBe(1);
      expect(proc.stderr).toMatch(/for product\.created, product\.updated, .*checkout\.submitted/);
    });

    it("--expect-attempts counts every attempt, whatever the reply", async () => {
      const proc = spawnLp(["listen", "--register", "--events", "product.created", "--respond", "500", "--expect-attempts", "product.created:3", "--json"], {
        env: s.env,
        cwd: s.sandbox.dir,
      });
      await proc.waitFor("stderr", /Ready: receiving webhooks at /);
      expect((await s.lp(["products", "create", "--title", "Failing", "--price", "5", "--type", "service"])).code).toBe(0);
      expect(await proc.exited).toBe(0);
      const records = proc.stdout.trim().split("\n").map((line) => JSON.parse(line)).filter((r) => r.type === "product.created");
      expect(records.map((r) => r.status)).toEqual([500, 500, 500]);
    });
  });
});
