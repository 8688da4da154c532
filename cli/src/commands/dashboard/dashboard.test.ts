import { startServer, type RunningServer } from "@lp/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";

describe("lp dashboard", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: "memory", port: 0, log: null });
  });
  afterAll(() => server.close());

  it("prints a one-time login URL obtained with the admin key", async () => {
    const fake = createFakeIo({ env: {} });
    const code = await main(["dashboard", "--api-url", server.url, "--admin-key", server.adminKey!], fake.io);
    expect(code).toBe(0);
    const url = fake.stdout.trim();
    expect(url).toMatch(new RegExp(`^${server.url}/_dashboard/login\\?token=[\\w-]+$`));
    expect(url).not.toContain(server.adminKey!);
    const first = await fetch(url, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toContain("HttpOnly; SameSite=Strict; Path=/_dashboard");
    expect((await fetch(url, { redirect: "manual" })).status).toBe(401);
  });

  it("exits 4 when the server refuses the admin key", async () => {
    const fake = createFakeIo({ env: {} });
    expect(await main(["dashboard", "--api-url", server.url, "--admin-key", "wrong"], fake.io)).toBe(4);
    expect(fake.stderr).toMatch(/refused the admin key/);
  });
});
