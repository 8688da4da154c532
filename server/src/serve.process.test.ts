import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServe } from "./testing/spawn-serve.js";

const dataDir = mkdtempSync(join(tmpdir(), "lp-serve-"));

describe("the serve process", () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("serves until SIGTERM, exits 0, and keeps fs data and credentials across a restart", { timeout: 60_000 }, async () => {
    const first = await spawnServe({ LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0" });
    const url = first.env.LP_API_URL;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    await health.arrayBuffer();
    const products = `${url}/v1/accounts/${first.env.LP_ACCOUNT}/products`;
    const auth = { authorization: `Bearer ${first.env.LP_TOKEN}`, "content-type": "application/json" };
    const created = await fetch(products, { method: "POST", headers: auth, body: JSON.stringify({ title: "Durable", price: 2, product_type: "service" }) });
    expect(created.status).toBe(201);
    const id = (await created.json()).data.id;

    first.child.kill("SIGTERM");
    expect(await first.exit).toEqual({ code: 0, signal: null });

    const second = await spawnServe({ LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0" });
    expect(second.env.LP_TOKEN).toBe(first.env.LP_TOKEN);
    const again = await fetch(`${second.env.LP_API_URL}/v1/accounts/${second.env.LP_ACCOUNT}/products/${id}`, { headers: auth });
    expect((await again.json()).data.title).toBe("Durable");
    second.child.kill("SIGINT");
    expect((await second.exit).code).toBe(0);
  });
});
