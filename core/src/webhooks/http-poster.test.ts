import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchPoster, RESPONSE_BODY_LIMIT, type Poster } from "./http-attempt.js";
import { createHttpPoster } from "./http-poster.js";
import { createGuardedPoster } from "./public-lookup.js";

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c)).on("end", () => {
      const path = req.url ?? "";
      if (path === "/redirect") return res.writeHead(302, { location: "http://elsewhere.example/" }).end();
      if (path === "/empty") return res.writeHead(204).end();
      if (path === "/silent") return;
      if (path === "/slow-body") return void res.writeHead(200, { "content-type": "text/plain" }).write("partial");
      if (path === "/cut") {
        res.writeHead(500, { "content-length": "100" }).write("only part");
        return setTimeout(() => res.socket?.destroy(), 20);
      }
      if (path === "/huge") return res.writeHead(500, { "content-type": "text/plain" }).end("é".repeat(RESPONSE_BODY_LIMIT));
      if (path === "/huge-ok") return res.writeHead(200).end("x".repeat(RESPONSE_BODY_LIMIT * 4));
      if (path === "/fail") return res.writeHead(503, { "content-type": "text/plain" }).end("down for a moment");
      const seen = { method: req.method, body, type: req.headers["content-type"], agent: req.headers["user-agent"], test: req.headers["x-test"], length: req.headers["content-length"] };
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(seen));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (post: Poster, path: string, extra: { timeoutMs?: number; keepSuccessBody?: boolean; body?: string; url?: string } = {}) =>
  post({
    url: extra.url ?? `${base}${path}`,
    body: extra.body ?? '{"a":"ü"}',
    headers: { "x-test": "yes" },
    timeoutMs: extra.timeoutMs ?? 2000,
    monotonic: () => performance.now(),
    keepSuccessBody: extra.keepSuccessBody,
  });

// The engine's client, the --public one (allowed to reach loopback here) and a fetch must judge every exchange
// alike: what the attempt records does not depend on how it was sent.
describe.each([
  ["node:http", () => createHttpPoster()],
  ["node:http, --public", () => createGuardedPoster(async () => ["127.0.0.1"], (a) => a === "127.0.0.1")],
  ["fetch", () => fetchPoster(globalThis.fetch)],
] as const)("a receiver's answers through %s", (_name, make) => {
  const post = make();

  it("sends one JSON POST with its headers and byte length, and keeps a 2xx body only when asked", async () => {
    const kept = await send(post, "/hook", { keepSuccessBody: true });
    expect(kept).toMatchObject({ status_code: 201, error: null, truncated: false });
    expect(JSON.parse(kept.response_body!)).toEqual({
      method: "POST",
      body: '{"a":"ü"}',
      type: "application/json",
      agent: "lp-webhooks/1",
      test: "yes",
      length: String(Buffer.byteLength('{"a":"ü"}')),
    });
    expect(kept.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await send(post, "/hook")).toMatchObject({ status_code: 201, error: null, response_body: null, truncated: false });
    expect(await send(post, "/empty", { keepSuccessBody: true })).toMatchObject({ status_code: 204, error: null, response_body: "" });
  });

  it("keeps a failure's body, at most the limit of it, and never follows a redirect", async () => {
    expect(await send(post, "/fail")).toMatchObject({ status_code: 503, error: null, response_body: "down for a moment", truncated: false });
    const huge = await send(post, "/huge");
    expect(huge).toMatchObject({ status_code: 500, truncated: true });
    expect(Buffer.byteLength(huge.response_body!)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT + 2);
    expect(huge.response_body!.startsWith("é".repeat(100))).toBe(true);
    expect(await send(post, "/huge-ok")).toMatchObject({ status_code: 200, response_body: null, truncated: false });
    expect(await send(post, "/redirect")).toMatchObject({ status_code: 302, error: "redirect to http://elsewhere.example/ not followed" });
  });

  it("reports a timeout over the whole exchange, body included, a cut answer and a refused connection", async () => {
    expect(await send(post, "/silent", { timeoutMs: 150 })).toMatchObject({ status_code: null, error: "timeout: no complete answer within 150 ms" });
    expect(await send(post, "/slow-body", { timeoutMs: 150, keepSuccessBody: true })).toMatchObject({ status_code: null, error: "timeout: no complete answer within 150 ms" });
    const cut = await send(post, "/cut");
    expect(cut.status_code).toBeNull();
    expect(cut.error).toBeTruthy();
    const refused = await send(post, "/", { url: "http://127.0.0.1:1/" });
    expect(refused).toMatchObject({ status_code: null, error: expect.any(String) });
    // fetch names the refusal in a cause of its cause; node:http in the error itself.
    if (_name !== "fetch") expect(refused.error).toMatch(/^ECONNREFUSED: /);
  });
});

describe("the engine's client on kept-alive sockets", () => {
  it("sends many requests over few sockets", async () => {
    const sockets = new Set<unknown>();
    const onConnection = (socket: unknown) => sockets.add(socket);
    server.on("connection", onConnection);
    try {
      const post = createHttpPoster();
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(Array.from({ length: 4 }, () => send(post, "/hook")));
        expect(results.map((r) => r.status_code)).toEqual([201, 201, 201, 201]);
      }
      expect(sockets.size).toBeLessThanOrEqual(4);
    } finally {
      server.off("connection", onConnection);
    }
  });

  it("refuses URLs it cannot send to without throwing", async () => {
    const post = createHttpPoster();
    expect(await send(post, "", { url: "ftp://example.com/x" })).toMatchObject({ status_code: null, error: "unsupported protocol ftp:" });
    expect(await send(post, "", { url: "not a url" })).toMatchObject({ status_code: null, error: "invalid URL: not a url" });
  });
});
