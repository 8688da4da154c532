import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConnectionLimits, maxConnectionsFor, readDescriptorLimit, type ConnectionLimits } from "./connection-limits.js";
import { listenOn, type Listener } from "./listen.js";

const LIMITS_TEXT = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            512                  4096                 files
Max locked memory         8388608              8388608              bytes
`;

describe("the descriptor limit and the caps drawn from it", () => {
  it("reads the soft limit on open files from /proc/self/limits", () => {
    expect(readDescriptorLimit(() => LIMITS_TEXT)).toBe(512);
    expect(readDescriptorLimit(() => LIMITS_TEXT.replace("512 ", "unlimited"))).toBeNull();
    expect(
      readDescriptorLimit(() => {
        throw new Error("ENOENT");
      }),
    ).toBeNull();
  });

  it("keeps a quarter of the descriptors, at least 64, for storage, Redis and uploads", () => {
    expect(maxConnectionsFor(512)).toBe(384);
    expect(maxConnectionsFor(200)).toBe(136);
    expect(maxConnectionsFor(1_048_576)).toBe(786_432);
    expect(maxConnectionsFor(null)).toBe(768); // not Linux: 1024 assumed
    expect(defaultConnectionLimits(false, 512)).toEqual({ headersTimeoutMs: 10_000, checkIntervalMs: 1_000, maxConnections: 384, maxPerAddress: null });
    expect(defaultConnectionLimits(true, 512).maxPerAddress).toBe(64);
  });
});

/** Opens a connection and resolves once it is open or refused; `ended` resolves when it closes. */
function open(listener: Listener): Promise<Socket & { ended: Promise<void> }> {
  const { port } = listener.server.address() as { port: number };
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1") as Socket & { ended: Promise<void> };
    socket.ended = new Promise((done) => socket.once("close", () => done()));
    socket.on("error", () => {});
    socket.resume();
    socket.once("connect", () => resolve(socket));
  });
}

describe("caps on a real port", () => {
  let listener: Listener | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await listener?.close();
  });

  async function start(limits: Partial<ConnectionLimits>) {
    const lines: string[] = [];
    const all: ConnectionLimits = { headersTimeoutMs: 10_000, checkIntervalMs: 1_000, maxConnections: 100, maxPerAddress: null, ...limits };
    listener = await listenOn((_req, res) => res.end("ok"), "127.0.0.1", 0, all, (line) => lines.push(line));
    return lines;
  }

  it("closes connections over the per-address cap and says so once, not per socket", async () => {
    const lines = await start({ maxPerAddress: 3 });
    const opened = await Promise.all(Array.from({ length: 10 }, () => open(listener!)));
    sockets.push(...opened);
    // Seven are closed by the server at once; three stay open (the test ends them).
    const refused = await Promise.all(opened.map((s) => Promise.race([s.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000))])));
    expect(refused.filter(Boolean)).toHaveLength(7);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/refusing connections: a client address has 3 open.*--max-connections-per-address/);
  });

  it("refuses over the global cap through Node's maxConnections, said once", async () => {
    const lines = await start({ maxConnections: 2 });
    const opened = await Promise.all(Array.from({ length: 6 }, () => open(listener!)));
    sockets.push(...opened);
    const refused = await Promise.all(opened.map((s) => Promise.race([s.ended.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2_000))])));
    expect(refused.filter(Boolean)).toHaveLength(4);
    expect(listener!.server.maxConnections).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/refusing connections: 2 are open.*--max-connections\)/)]);
  });

  it("answers 408 and closes a connection that sends no head within the timeout", async () => {
    await start({ headersTimeoutMs: 1_000, checkIntervalMs: 250 });
    const socket = await open(listener!);
    sockets.push(socket);
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    await socket.ended;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  });
});
