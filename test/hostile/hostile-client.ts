import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, expect } from "vitest";
import { startServe, type Served } from "../../cli/src/e2e/processes.js";

/** How long a raw exchange may take before the test gives up on it (generous: the machine is shared). */
const EXCHANGE_TIMEOUT_MS = 15_000;
/** How long `/healthz` may take after an attack; the answer must come, how fast is the bench's business. */
const HEALTH_TIMEOUT_MS = 5_000;

/** A real `lp serve` (the built CLI) and what a hostile client needs from it. */
export interface Target {
  served: Served;
  url: string;
  host: string;
  port: number;
  account: string;
  token: string;
  /** `Authorization` and account path for the products collection. */
  productsPath: string;
}

/** Starts `lp serve --storage memory --port 0` with `extra` flags (`nofile`: under `ulimit -n`). */
export async function startTarget(extra: string[] = [], options: { nofile?: number } = {}): Promise<Target> {
  const served = await startServe(extra, options);
  const url = served.env.LP_API_URL;
  const { hostname, port } = new URL(url);
  const account = served.env.LP_ACCOUNT;
  return { served, url, host: hostname, port: Number(port), account, token: served.env.LP_TOKEN, productsPath: `/v1/accounts/${account}/products` };
}

/** What came back on a raw connection. */
export interface RawAnswer {
  /** Everything received, as latin1 text. */
  raw: string;
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Opens a TCP connection, lets `send` write whatever it likes (errors from writing into a connection the
 * server closed are expected), and collects the answer until the server closes the connection or one
 * complete response with a Content-Length arrived.
 */
export function rawExchange(target: Target, send: (socket: Socket) => void | Promise<void>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(target.port, target.host);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(Buffer.concat(chunks).toString("latin1")), closed });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no complete answer within ${EXCHANGE_TIMEOUT_MS} ms; received: ${Buffer.concat(chunks).toString("latin1").slice(0, 300)}`));
    }, EXCHANGE_TIMEOUT_MS);
    socket.on("error", () => {}); // EPIPE/ECONNRESET while still writing: the answer is what counts
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      const answer = parse(Buffer.concat(chunks).toString("latin1"));
      if (answer.status === null) return;
      const length = Number(answer.headers["content-length"] ?? NaN);
      if (Number.isFinite(length) ? Buffer.byteLength(answer.body, "latin1") >= length : answer.body.endsWith("0\r\n\r\n")) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      Promise.resolve(send(socket)).catch(() => {});
    });
  });
}

function parse(raw: string): Omit<RawAnswer, "closed"> {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return { raw, status: null, headers: {}, body: "" };
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(":")).trim().toLowerCase()] = line.slice(line.indexOf(":") + 1).trim();
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1];
  return { raw, status: status ? Number(status) : null, headers, body: raw.slice(end + 4) };
}

/** Writes `data` and waits until the socket took it (or failed, which a hostile client ignores). */
export function write(socket: Socket, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(data, () => resolve());
  });
}

/** Sends `total` bytes of `fill` as a chunked body, `chunk` bytes per chunk, then the last chunk. */
export async function writeChunked(socket: Socket, total: number, fill = "a", chunk = 64 * 1024): Promise<void> {
  for (let sent = 0; sent < total && !socket.destroyed; sent += chunk) {
    const size = Math.min(chunk, total - sent);
    await write(socket, `${size.toString(16)}\r\n${fill.repeat(size)}\r\n`);
  }
  await write(socket, "0\r\n\r\n");
}

/** The request head for `method path` with the given headers (Host and Connection added). */
export function head(target: Target, method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${target.host}:${target.port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** `Authorization` for the dev account. */
export const bearer = (target: Target) => ({ Authorization: `Bearer ${target.token}` });

/** The server still answers `/healthz`. */
export async function expectHealthy(target: Target): Promise<void> {
  const res = await fetch(`${target.url}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

/** Every product of the dev account, as the API lists them (to compare before and after an attack). */
export async function productsSnapshot(target: Target): Promise<unknown[]> {
  const res = await fetch(`${target.url}${target.productsPath}?per_page=100`, { headers: bearer(target), signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

/** Creates a product through the API (the record an attack must not lose or change). */
export async function createProduct(target: Target, title: string): Promise<{ id: string }> {
  const res = await fetch(`${target.url}${target.productsPath}`, {
    method: "POST",
    headers: { ...bearer(target), "content-type": "application/json" },
    body: JSON.stringify({ title, price: 12, product_type: "service" }),
  });
  expect(res.status).toBe(201);
  return (await res.json()).data;
}

/** Expects a clear 4xx error envelope with `code`. */
export function expectRefused(answer: RawAnswer, status: number, code: string): Record<string, unknown> {
  expect(answer.status, answer.raw.slice(0, 400)).toBe(status);
  const body = JSON.parse(answer.body.slice(0, Number(answer.headers["content-length"] ?? answer.body.length)));
  expect(body.error.code).toBe(code);
  return body.error;
}

/**
 * A 4xx, either ours (the error envelope) or Node's own for a request it could not parse (an empty
 * `400 Bad Request` with `Connection: close`), or a connection closed without an answer.
 */
export function expectClientErrorOrClose(answer: RawAnswer): void {
  if (answer.status === null) {
    expect(answer.closed).toBe(true);
    return;
  }
  expect(answer.status, answer.raw.slice(0, 400)).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.raw.slice(0, 400)).toBeLessThan(500);
  if (answer.body.length > 0) expect(JSON.parse(answer.body).error.code).toMatch(/^[a-z_]+$/);
  else expect(answer.headers.connection).toBe("close");
}

/**
 * Starts a real `lp serve` for a suite, with one product in it, and checks when the suite ends that the
 * products are exactly as they were and that the process stops cleanly: no attack may lose or change a
 * record. Call it inside `describe`; the returned function gives the started target.
 */
export function useGuardedTarget(extra: string[] = []): () => Target {
  let target: Target | undefined;
  let before: unknown[];
  beforeAll(async () => {
    target = await startTarget(extra);
    await createProduct(target, "Kept");
    before = await productsSnapshot(target);
  });
  afterAll(async () => {
    if (!target) return;
    expect(await productsSnapshot(target)).toEqual(before);
    expect(await target.served.stop()).toBe(0);
  });
  return () => {
    if (!target) throw new Error("the target is started in beforeAll");
    return target;
  };
}
