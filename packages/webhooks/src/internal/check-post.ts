import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { performance } from "node:perf_hooks";

/** Largest part of an answer read: enough for a challenge echo and an excerpt; the rest is not read. */
const READ_LIMIT = 64 * 1024;

/** What came back from one POST. Never an exception: a timeout or network error is `error`. */
export interface PostAnswer {
  status: number | null;
  error: string | null;
  location: string | null;
  /** At most {@link READ_LIMIT} bytes of the answer, as UTF-8. */
  text: string;
  latencyMs: number;
}

/**
 * Sends one POST with node:http(s): a fresh connection per request (no pool left open when the check
 * ends), redirects never followed, the timeout over the whole exchange, the answer read up to a limit.
 */
export function postOnce(url: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<PostAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (answer: Omit<PostAnswer, "latencyMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, latencyMs: Math.round(performance.now() - started) });
    };
    const fail = (error: string) => finish({ status: null, error, location: null, text: "" });
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    let req: ClientRequest;
    try {
      req = send(url, { method: "POST", agent: false, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, read);
    } catch (error) {
      return resolve({ status: null, error: (error as Error).message, location: null, text: "", latencyMs: 0 });
    }
    timer = setTimeout(() => {
      fail(`timeout after ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => fail(error.code ? `${error.code}: ${error.message}` : error.message));
    req.end(body);

    function read(res: IncomingMessage): void {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const location = typeof res.headers.location === "string" ? res.headers.location.slice(0, 2048) : null;
        const text = Buffer.concat(chunks).subarray(0, READ_LIMIT).toString("utf8");
        finish({ status: res.statusCode ?? null, error: null, location, text });
      };
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        chunks.push(chunk);
        size += chunk.byteLength;
        // The verdict needs only the first bytes; a receiver that streams without end is not waited on.
        if (size >= READ_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on("end", done);
      res.on("error", (error) => fail(error.message));
      res.on("close", () => fail("the connection closed before the answer was complete"));
    }
  });
}
