import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { isLoopbackHost } from "../exposure.js";
import { applyConnectionCaps, applyServerTimeouts, type ConnectionLimits } from "./connection-limits.js";
import type { NodeHandler } from "./node-handler.js";

/** listhen's module, imported on first use (its port finder, QR code and tunnel helpers cost start-up time). */
let listhen: Promise<typeof import("listhen")> | undefined;
/** Starts importing listhen, so the import overlaps the rest of start-up; `listenOn` awaits the same promise. */
export const preloadListhen = () => (listhen ??= import("listhen"));

/** A listening HTTP server and how to stop it. */
export interface Listener {
  server: Server;
  /** Stops accepting, lets open requests finish, and ends keep-alive connections as they fall idle. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` through listhen (a lazy import). What lp guarantees on top of it: loopback unless
 * `host` says otherwise (listhen's `public` follows the host, never the environment), port 0 for a free port,
 * a port in use refused with `EADDRINUSE` (listhen's port finder is told not to move to another port), a port
 * browsers block refused with `EUNSAFEPORT` (listhen's finder would move it to 3000), no
 * banner, URL, clipboard or signal handlers of listhen's own, and the close below. With `limits`, connections
 * are bounded in time and number (refusals told through `report`); without, Node's defaults apply.
 */
export async function listenOn(handler: NodeHandler, host: string, port: number, limits?: ConnectionLimits, report: (line: string) => void = (line) => console.error(line)): Promise<Listener> {
  let closing = false;
  // Each connection's latest response (a property write per request, no listener): on close, the ones
  // still being answered are told to end their connection when done.
  const kResponse = Symbol("response");
  type Tracked = Socket & { [kResponse]?: ServerResponse };
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    if (sockets.has(socket)) return;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const { listen } = await preloadListhen();
  const listener = await listen(
    (req, res) => {
      track(req.socket);
      // Once closing, each answer ends its connection, so a keep-alive client cannot hold the server open.
      if (closing) res.shouldKeepAlive = false;
      else (req.socket as Tracked)[kResponse] = res;
      return handler(req, res);
    },
    {
      hostname: host,
      public: !isLoopbackHost(host),
      // A number for port 0 (any free port); otherwise this port or an error, never another one.
      port: port === 0 ? 0 : { port, random: false, alternativePortRange: [] as unknown as [number, number] },
      showURL: false,
      qr: false,
      clipboard: false,
      open: false,
      autoClose: false,
      isTest: true, // keeps listhen's port finder from printing
    },
  ).catch((error: Error) => {
    if (error.name !== "GetPortError") throw error;
    throw Object.assign(new Error(`Port ${port} on ${host} is already in use (${error.message}).`), { code: "EADDRINUSE" });
  });
  const server = listener.server as Server;
  // listhen's port finder takes port 3000 instead of a port browsers block (6000, 6665-6669 and the like),
  // whatever it is told: such a port is refused, never silently moved.
  const bound = server.address();
  if (port !== 0 && typeof bound === "object" && bound && bound.port !== port) {
    await listener.close();
    throw Object.assign(new Error(`Port ${port} is one browsers refuse to connect to (listhen will not listen on it): choose another port.`), { code: "EUNSAFEPORT" });
  }
  server.on("connection", track);
  if (limits) applyServerTimeouts(server, limits);
  const stopCaps = limits ? applyConnectionCaps(server, limits, report) : () => {};
  let closed: Promise<void> | null = null;
  return {
    server,
    close() {
      closed ??= new Promise<void>((done) => {
        closing = true;
        stopCaps();
        server.close(() => done());
        server.closeIdleConnections();
        for (const socket of sockets) {
          const res = (socket as Tracked)[kResponse];
          if (res && !res.headersSent) res.shouldKeepAlive = false;
          else if (res && res.writableEnded) socket.end(); // answered, and the next request has not come
        }
      });
      return closed;
    },
  };
}
