import { describe, expect, it } from "vitest";
import { isLoopbackHost, toAdminExposureProblem } from "./exposure.js";
import { startServer } from "./serve.js";

describe("admin exposure on a network bind (DESIGN §14)", () => {
  it("tells loopback binds from network ones", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1", "example.com", "::ffff:10.0.0.1"]) expect(isLoopbackHost(host), host).toBe(false);
  });

  it("refuses an explicit admin key under 32 characters on a network bind only", () => {
    expect(toAdminExposureProblem("0.0.0.0", "x".repeat(31))).toMatch(/LP_ADMIN_KEY.*--no-admin/);
    expect(toAdminExposureProblem("0.0.0.0", "x".repeat(32))).toBeNull();
    expect(toAdminExposureProblem("0.0.0.0", undefined)).toBeNull();
    expect(toAdminExposureProblem("127.0.0.1", "x")).toBeNull();
  });

  it("startServer refuses before binding anything", async () => {
    await expect(startServer({ host: "0.0.0.0", port: 0, storage: "memory", adminKey: "short", log: null })).rejects.toThrow(/LP_ADMIN_KEY/);
  });
});
