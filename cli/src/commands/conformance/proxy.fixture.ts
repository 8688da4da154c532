import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request as the proxy saw it. */
export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** The body as text (a multipart upload is forwarded as its bytes). */
  body: string;
}

/** An answer the proxy may rewrite before passing it on. */
export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What the proxy does to traffic: forward (the default), hang, reset, or rewrite the answer. */
export interface ProxyRules {
  /** `hang`: never answer (the socket stays open until the proxy closes); `reset`: drop the connection. */
  intercept?(req: ProxiedRequest): "hang" | "reset" | undefined;
  rewrite?(req: ProxiedRequest, answer: ProxiedAnswer): ProxiedAnswer;
}

/**
 * A node:http proxy in front of a real lp, for the conformance tests: it forwards every request as it
 * came, and lets a test drop a field, change a status, strip an error envelope, or stop answering.
 */
export async function startProxy(target: string, rules: ProxyRules = {}) {
  const sockets = new Set<Socket>();
  const seen: ProxiedRequest[] = [];
  let stopped = false;
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const request: ProxiedRequest = { method: req.method ?? "GET", path: req.url ?? "/", body: raw.toString("utf8") };
    seen.push(request);
    const action = stopped ? "reset" : rules.intercept?.(request);
    if (action === "reset") return void req.socket.destroy();
    if (action === "hang") return;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || ["host", "connection", "content-length"].includes(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const upstream = await fetch(`${target}${request.path}`, { method: request.method, headers, body: ["GET", "HEAD"].includes(request.method) ? undefined : new Uint8Array(raw), redirect: "manual" });
    const answer: ProxiedAnswer = { status: upstream.status, headers: {}, body: await upstream.text() };
    upstream.headers.forEach((value, name) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"].includes(name)) answer.headers[name] = value;
    });
    const out = rules.rewrite ? rules.rewrite(request, answer) : answer;
    res.writeHead(out.status, out.headers).end(out.body);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Every request, in order. */
    seen,
    /** From now on every connection is dropped: the instance "stops answering". */
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
