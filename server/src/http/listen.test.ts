import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { listenOn } from "./listen.js";

function get(port: number, agent: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("listenOn", () => {
  it("refuses a port in use instead of moving to another", async () => {
    const first = await listenOn((_req, res) => res.end("a"), "127.0.0.1", 0);
    const { port } = first.server.address() as AddressInfo;
    await expect(listenOn((_req, res) => res.end("b"), "127.0.0.1", port)).rejects.toMatchObject({ code: "EADDRINUSE", message: expect.stringContaining(`Port ${port} on 127.0.0.1 is already in use`) });
    await first.close();
  });

  it("binds the loopback address asked for, whatever HOST and NODE_ENV say", async () => {
    const saved = { HOST: process.env.HOST, NODE_ENV: process.env.NODE_ENV };
    Object.assign(process.env, { HOST: "0.0.0.0", NODE_ENV: "production" });
    try {
      const listener = await listenOn((_req, res) => res.end("a"), "127.0.0.1", 0);
      expect(listener.server.address()).toMatchObject({ address: "127.0.0.1" });
      await listener.close();
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("lets an open request finish on close, then ends its keep-alive connection", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const started = new Promise<void>((resolve) => (arrived = resolve));
    const listener = await listenOn((req, res) => {
      if (req.url === "/") {
        arrived();
        void held.then(() => res.end("done"));
      }
    }, "127.0.0.1", 0);
    const { port } = listener.server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    const answer = get(port, agent);
    await started;
    const closed = listener.close();
    release();
    expect(await answer).toEqual({ status: 200, connection: "close" });
    await closed; // resolves only once no connection is left
    expect(listener.server.listening).toBe(false);
    agent.destroy();
  });
});
