import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { dnsResolveHost, isPublicAddress, type ResolveHost } from "./address-guard.js";
import type { FetchLike } from "./http-attempt.js";

/** An error of the connect-time check, shaped like fetch's causes (`code`, `message`). */
function blockedError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: "blocked" });
}

/**
 * A `lookup` for sockets that resolves with `resolveHost` and refuses the connection when any address
 * is not public. It runs when the socket is opened, so the address checked is the address dialled: a
 * name that answered a public address to the earlier check and 127.0.0.1 now (DNS rebinding) fails here.
 */
export function createPublicLookup(resolveHost: ResolveHost, allow: (address: string) => boolean = isPublicAddress): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const bad = addresses.find((a) => !allow(a));
        if (addresses.length === 0) return callback(blockedError(`the host '${hostname}' has no addresses`), "", 4);
        if (bad) return callback(blockedError(`the host '${hostname}' resolved to ${bad} when connecting, a non-public address (refused with --public)`), "", 4);
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => isIP(a) === options.family) : addresses;
        const list = wanted.length > 0 ? wanted : addresses;
        // Node asks for every address (`all`) when it races IPv4 and IPv6, else for one.
        if (options.all) return (callback as (e: null, a: { address: string; family: number }[]) => void)(null, list.map((address) => ({ address, family: isIP(address) })));
        callback(null, list[0], isIP(list[0]));
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };
}

/**
 * The fetch of `lp serve --public`: HTTP(S) requests whose sockets connect only to public addresses
 * ({@link createPublicLookup}); an IP literal is judged before any socket opens. It keeps fetch's shape
 * (errors are a `TypeError` with the reason as `cause`) and never follows a redirect. `allow` is the
 * judge of an address (tests widen it to loopback to exercise the HTTP side).
 */
export function createGuardedFetch(resolveHost: ResolveHost = dnsResolveHost, allow: (address: string) => boolean = isPublicAddress): FetchLike {
  const lookup = createPublicLookup(resolveHost, allow);
  // Kept-alive sockets stay connected to the address checked when they were opened.
  const agents = { http: new HttpAgent({ keepAlive: true, lookup } as object), https: new HttpsAgent({ keepAlive: true, lookup } as object) };
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const fail = (cause: unknown) => reject(new TypeError("fetch failed", { cause }));
      const url = new URL(input);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      if (url.protocol !== "http:" && url.protocol !== "https:") return fail(new Error(`unsupported protocol ${url.protocol}`));
      if (isIP(host) && !allow(host)) return fail(blockedError(`${host} is a non-public address (refused with --public)`));
      const body = init.body ?? "";
      if (typeof body !== "string" && !(body instanceof Uint8Array)) return fail(new Error("the guarded fetch sends string or byte bodies only"));
      const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers).entries());
      if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
      const secure = url.protocol === "https:";
      const options = { method: init.method ?? "GET", headers, agent: secure ? agents.https : agents.http, signal: init.signal ?? undefined };
      const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
        try {
          resolve(toResponse(res));
        } catch (error) {
          res.destroy();
          fail(error);
        }
      });
      req.on("error", fail);
      req.end(body);
    });
}

function toResponse(res: IncomingMessage): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  const status = res.statusCode ?? 0;
  const empty = status === 204 || status === 205 || status === 304;
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage, headers });
}
