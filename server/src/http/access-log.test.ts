import { describe, expect, it } from "vitest";
import { startServer } from "../serve.js";
import { createAccessLog } from "./access-log.js";

describe("access log", () => {
  it("writes the lines of a burst in one call, formatted, once the burst is handled", async () => {
    const writes: string[] = [];
    const log = createAccessLog((lines) => writes.push(lines));
    log.record("GET", "/healthz", 200, 0.25, "req_a");
    log.record("POST", "/v1/accounts/acct_dev/products", 201, 12.345, "req_b");
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(["GET /healthz 200 0.3ms req_a\nPOST /v1/accounts/acct_dev/products 201 12.3ms req_b"]);
  });

  it("writes at 512 pending entries without waiting, and on flush()", () => {
    const writes: string[] = [];
    const log = createAccessLog((lines) => writes.push(lines));
    for (let i = 0; i < 513; i++) log.record("GET", `/p/${i}`, 200, 1, `req_${i}`);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split("\n")).toHaveLength(512);
    log.flush();
    expect(writes[1]).toBe("GET /p/512 200 1.0ms req_512");
    log.flush();
    expect(writes).toHaveLength(2);
  });

  it("logs each request of a running server, every line written by close", async () => {
    const lines: string[] = [];
    const server = await startServer({ storage: "memory", port: 0, log: (text) => lines.push(...text.split("\n")) });
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    } finally {
      await server.close();
    }
    expect(lines.map((line) => line.replace(/ \d+\.\dms req_[0-9a-f]{24}$/, ""))).toEqual(["GET /healthz 200", "GET /healthz 200", "GET /healthz 200", "GET /nope 404"]);
  });

  it("never lets a failing sink change an answer", async () => {
    const server = await startServer({ storage: "memory", port: 0, log: () => { throw new Error("disk full"); } });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
