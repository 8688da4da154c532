import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { urlToHttpOptions } from "node:url";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { BASE_HEADERS, describeError, redirectError, RESPONSE_BODY_LIMIT, timeoutError, type Poster, type PostResult } from "./http-attempt.js";

/** Options of {@link createHttpPoster}. */
export interface HttpPosterOptions {
  /**
   * Resolves host names when a socket opens (`createPublicLookup` for `lp serve --public`): the address
   * judged is the address dialled, and a refusal fails the attempt with the lookup's error.
   */
  lookup?: LookupFunction;
  /** Judges an IP literal in the URL before any socket opens; absent, every address is allowed. */
  allow?: (address: string) => boolean;
}

/**
 * The engine's HTTP client: node:http and node:https with kept-alive sockets, and the body read as Node
 * buffers. fetch would wrap every request and answer in web streams and an abort signal, which measured
 * about 40% of the engine's CPU per delivery; the exchange on the wire is the same (one POST, no redirect
 * followed, the timeout over the whole exchange, at most {@link RESPONSE_BODY_LIMIT} bytes of the answer
 * kept). Kept-alive sockets stay connected to the address checked when they opened.
 */
export function createHttpPoster(options: HttpPosterOptions = {}): Poster {
  const agentOptions = options.lookup ? { keepAlive: true, lookup: options.lookup } : { keepAlive: true };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  // An endpoint's URL is parsed and judged once, not on every attempt (a URL's verdict never changes).
  const targets = new Map<string, Target>();
  const targetOf = (text: string): Target => {
    let target = targets.get(text);
    if (target === undefined) {
      if (targets.size >= TARGET_CACHE) targets.clear();
      targets.set(text, (target = toTarget(text, options.allow)));
    }
    return target;
  };
  return (input) =>
    new Promise<PostResult>((resolve) => {
      const started = input.monotonic();
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = (result: Omit<PostResult, "latency_ms">) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        resolve({ ...result, latency_ms: Math.max(0, Math.round(input.monotonic() - started)) });
      };
      const fail = (error: string) => done({ status_code: null, error, response_body: null, truncated: false });

      const target = targetOf(input.url);
      if ("refused" in target) return fail(target.refused);
      const { secure, at } = target;
      // One literal of fixed shape per request: spreading the URL's options (a null-prototype object) and
      // three header sources measured as a visible share of the client's own CPU per attempt.
      const headers: Record<string, string> = { "content-type": BASE_HEADERS["content-type"], "user-agent": BASE_HEADERS["user-agent"] };
      for (const name in input.headers) headers[name] = input.headers[name];
      headers["content-length"] = String(Buffer.byteLength(input.body));

      let req: ClientRequest;
      try {
        const options: RequestOptions & { servername: string } = {
          protocol: at.protocol,
          hostname: at.hostname,
          port: at.port,
          path: at.path,
          auth: at.auth,
          servername: at.servername,
          method: "POST",
          headers,
          agent: secure ? agents.https : agents.http,
        };
        req = (secure ? httpsRequest : httpRequest)(options, read);
      } catch (error) {
        return fail(describeError(error));
      }
      timer = setTimeout(() => {
        fail(timeoutError(input.timeoutMs));
        req.destroy();
      }, input.timeoutMs);
      timer.unref?.();
      req.on("error", (error) => fail(describeError(error)));
      req.end(input.body);

      function read(res: IncomingMessage): void {
        const status = res.statusCode ?? 0;
        const keep = status < 200 || status >= 300 || input.keepSuccessBody === true;
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (truncated: boolean) => {
          const text = keep ? Buffer.concat(chunks, Math.min(size, RESPONSE_BODY_LIMIT + 1)).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8") : null;
          const error = status >= 300 && status < 400 ? redirectError(res.headers.location) : null;
          done({ status_code: status, error, response_body: text, truncated: keep && truncated });
        };
        res.on("data", (chunk: Buffer) => {
          if (settled) return;
          size += chunk.byteLength;
          if (keep) chunks.push(chunk);
          // Past the limit the rest is not read: the answer is judged on what came, and the socket closed.
          if (size > RESPONSE_BODY_LIMIT) {
            finish(true);
            res.destroy();
          }
        });
        res.on("end", () => finish(false));
        res.on("error", (error) => fail(describeError(error)));
        res.on("close", () => fail("ECONNRESET: the connection closed before the answer was complete"));
      }
    });
}

/** Endpoint URLs whose parse and verdict are kept; past it the cache starts over. */
const TARGET_CACHE = 1024;

/** Where a request goes, taken from a URL once: the fields of its options that node:http reads. */
interface Address {
  protocol: string;
  hostname: string;
  port: number | undefined;
  path: string;
  auth: string | undefined;
  /** The TLS server name node:http would work out from the Host header on every request: the host, none for an IP. */
  servername: string;
}

/** A receiver's URL, parsed and judged: where to send, or why not. */
type Target = { at: Address; secure: boolean } | { refused: string };

function toTarget(text: string, allow: HttpPosterOptions["allow"]): Target {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: `invalid URL: ${text}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { refused: `unsupported protocol ${url.protocol}` };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (allow && isIP(host) && !allow(host)) return { refused: `blocked: ${host} is a non-public address (refused with --public)` };
  const options = urlToHttpOptions(url);
  const at: Address = {
    protocol: url.protocol,
    hostname: options.hostname ?? host,
    port: options.port === undefined || options.port === "" ? undefined : Number(options.port),
    path: options.path ?? "/",
    auth: options.auth ?? undefined,
    servername: isIP(host) ? "" : host,
  };
  return { at, secure: url.protocol === "https:" };
}
