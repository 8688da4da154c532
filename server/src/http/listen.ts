import { createServer, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { applyConnectionCaps, serverTimeouts, type ConnectionLimits } from "./connection-limits.js";
import type { NodeHandler } from "./node-handler.js";

/** A listening HTTP server and how to stop it. */
export interface Listener {
  server: Server;
  /** Stops accepting, lets open requests finish, and ends keep-alive connections as they fall idle. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port` with Node's own HTTP server. Used instead of a listener library, whose import
 * (port finding, clipboard, QR code, tunnels) cost about 70 ms of `lp serve` start-up. A port already in
 * use is an error, never a quiet move to another one. With `limits`, connections are bounded in time and
 * number (refusals told through `report`); without, Node's defaults apply.
 */
export function listenOn(handler: NodeHandler, host: string, port: number, limits?: ConnectionLimits, report: (line: string) => void = (line) => console.error(line)): Promise<Listener> {
  let closing = false;
  // Each connection's latest response (a property write per request, no listener): on close, the ones
  // still being answered are told to end their connection when done.
  const kResponse = Symbol("response");
  type Tracked = Socket & { [kResponse]?: ServerResponse };
  const sockets = new Set<Socket>();
  const server = createServer(limits ? serverTimeouts(limits) : {}, (req, res) => {
    // Once closing, each answer ends its connection, so a keep-alive client cannot hold the server open.
    if (closing) res.shouldKeepAlive = false;
    else (req.socket as Tracked)[kResponse] = res;
    return handler(req, res);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const stopCaps = limits ? applyConnectionCaps(server, limits, report) : () => {};
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      let closed: Promise<void> | null = null;
      resolve({
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
      });
    });
  });
}
