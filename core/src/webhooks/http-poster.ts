import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { urlToHttpOptions } from "node:url";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { BASE_HEADERS, describeError, redirectError, RESPONSE_BODY_LIMIT, timeoutError, type Poster, type PostInput, type PostResult } from "./http-attempt.js";

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
      const exchange = new Exchange(input, resolve);
      const target = targetOf(input.url);
      if ("refused" in target) return exchange.fail(target.refused);
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
        req = (secure ? httpsRequest : httpRequest)(options);
      } catch (error) {
        return exchange.fail(describeError(error));
      }
      exchange.start(req);
      req.end(input.body);
    });
}

/** The exchange a request and its answer belong to, kept on both so their listeners are shared functions. */
const EXCHANGE = Symbol("lp.exchange");
type Carrier = { [EXCHANGE]: Exchange };

/**
 * One POST and its answer. Its listeners and timer are module functions that find the exchange on the
 * emitter (or as the timer's argument), not closures made per request: every attempt runs through here.
 */
class Exchange {
  private readonly started: number;
  private settled = false;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private req: ClientRequest | undefined = undefined;
  private status = 0;
  private keep = false;
  private chunks: Buffer[] | null = null;
  private size = 0;
  private location: string | undefined = undefined;

  constructor(
    private readonly input: PostInput,
    private readonly resolve: (result: PostResult) => void,
  ) {
    this.started = input.monotonic();
  }

  start(req: ClientRequest): void {
    this.req = req;
    (req as unknown as Carrier)[EXCHANGE] = this;
    this.timer = setTimeout(onTimeout, this.input.timeoutMs, this);
    this.timer.unref?.();
    req.on("error", onRequestError);
    req.on("response", onResponse);
  }

  done(status_code: number | null, error: string | null, response_body: string | null, truncated: boolean): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    const latency_ms = Math.max(0, Math.round(this.input.monotonic() - this.started));
    this.resolve({ status_code, latency_ms, error, response_body, truncated });
  }

  fail(error: string): void {
    this.done(null, error, null, false);
  }

  timedOut(): void {
    this.fail(timeoutError(this.input.timeoutMs));
    this.req?.destroy();
  }

  answered(res: IncomingMessage): void {
    const status = res.statusCode ?? 0;
    this.status = status;
    this.keep = status < 200 || status >= 300 || this.input.keepSuccessBody === true;
    if (this.keep) this.chunks = [];
    if (status >= 300 && status < 400) this.location = res.headers.location;
    (res as unknown as Carrier)[EXCHANGE] = this;
    res.on("data", onData);
    res.on("end", onEnd);
    res.on("error", onResponseError);
    res.on("close", onClose);
  }

  /** A chunk of the answer; past the limit the rest is not read: the answer is judged on what came, and the socket closed. */
  chunk(res: IncomingMessage, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.byteLength;
    if (this.chunks) this.chunks.push(chunk);
    if (this.size > RESPONSE_BODY_LIMIT) {
      this.finish(true);
      res.destroy();
    }
  }

  finish(truncated: boolean): void {
    if (this.settled) return;
    const { status, keep, chunks } = this;
    const text = chunks ? Buffer.concat(chunks, Math.min(this.size, RESPONSE_BODY_LIMIT + 1)).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8") : null;
    const error = status >= 300 && status < 400 ? redirectError(this.location) : null;
    this.done(status, error, text, keep && truncated);
  }
}

function onTimeout(exchange: Exchange): void {
  exchange.timedOut();
}
function onRequestError(this: Carrier, error: Error): void {
  this[EXCHANGE].fail(describeError(error));
}
function onResponse(this: Carrier, res: IncomingMessage): void {
  this[EXCHANGE].answered(res);
}
function onData(this: IncomingMessage & Carrier, chunk: Buffer): void {
  this[EXCHANGE].chunk(this, chunk);
}
function onEnd(this: Carrier): void {
  this[EXCHANGE].finish(false);
}
function onResponseError(this: Carrier, error: Error): void {
  this[EXCHANGE].fail(describeError(error));
}
function onClose(this: Carrier): void {
  this[EXCHANGE].fail("ECONNRESET: the connection closed before the answer was complete");
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
