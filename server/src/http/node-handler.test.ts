import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { toSafeNodeHandler, type NodeHandler } from "./node-handler.js";

let server: Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(handler: NodeHandler, reported: unknown[]): Promise<string> {
  server = createServer(toSafeNodeHandler(handler, (_line, error) => reported.push(error)));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("toSafeNodeHandler", () => {
  it("turns a synchronous throw and a rejection into that request's 500, logged with its request id", async () => {
    const reported: unknown[] = [];
    const url = await serve((req, res) => {
      if (req.url === "/throw") throw new Error("thrown outside");
      if (req.url === "/reject") return Promise.reject(new Error("rejected outside"));
      res.end("fine");
    }, reported);
    for (const path of ["/throw", "/reject"]) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body.error.code).toBe("internal_error");
      expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
      expect(JSON.stringify(body)).not.toContain("outside");
    }
    expect(reported.map((e) => (e as Error).message)).toEqual(["thrown outside", "rejected outside"]);
    // The server lives on.
    expect(await (await fetch(`${url}/ok`)).text()).toBe("fine");
  });
});
