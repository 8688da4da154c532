import { describe, expect, it } from "vitest";
import { startLp } from "./start-lp.js";

describe("startLp().requests: the request journal", () => {
  it("finds the calls made, with their bodies, newest first, and waits for calls still to come", async () => {
    await using lp = await startLp({ webhooks: false });
    await lp.client.products.create({ title: "Apron", price: 42, product_type: "physical" });
    await lp.client.products.list({ per_page: 5 });
    const [created] = lp.requests.find({ method: "post", path: "/v1/accounts/*/products" });
    expect(created).toMatchObject({ method: "POST", status: 201, path: `/v1/accounts/${lp.credentials.accountId}/products` });
    expect(JSON.parse(created!.request.body)).toEqual({ title: "Apron", price: 42, product_type: "physical" });
    expect(created!.request.headers.authorization).toBe("[redacted]");
    expect(lp.requests.find({ path: "*/products" }).map((e) => e.method)).toEqual(["GET", "POST"]);
    expect(lp.requests.find({ path: "*/products" })[0]!.query).toEqual({ per_page: "5" });
    expect(lp.requests.find({ status: "4xx" })).toEqual([]);

    // Already answered: at once.
    expect(await lp.requests.waitFor({ method: "POST" })).toHaveLength(1);
    // Still to come: once the second matching request is answered.
    const two = lp.requests.waitFor({ status: 404 }, { count: 2 });
    await lp.client.products.get("prod_missing1").catch(() => {});
    await lp.client.products.get("prod_missing2").catch(() => {});
    expect((await two).map((e) => e.path.split("/").pop())).toEqual(["prod_missing2", "prod_missing1"]);
  });

  it("rejects after the timeout, naming what was answered, and when closed", async () => {
    const lp = await startLp({ webhooks: false });
    await lp.client.products.list();
    await expect(lp.requests.waitFor({ method: "DELETE" }, { timeoutMs: 20 })).rejects.toThrow(/0 of 1 matching request\(s\) within 20 ms .*the latest answered: GET \/v1\/accounts\/acct_dev\/products 200/);
    const pending = lp.requests.waitFor({ method: "PUT" }, { timeoutMs: 60_000 });
    pending.catch(() => {});
    await lp.close();
    await expect(pending).rejects.toThrow(/closed before/);
  });
});
