/** A fetch the engine may be given instead of its own HTTP client (tests, embedders). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Largest response body kept on an attempt. */
export const RESPONSE_BODY_LIMIT = 4096;

/** One POST to a receiver. */
export interface PostInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Milliseconds from a monotonic source, for latency. */
  monotonic: () => number;
  /** Keep the response body of a 2xx answer too (the challenge needs it). */
  keepSuccessBody?: boolean;
}

/** What came back: a status, or the error that stopped it. */
export interface PostResult {
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  truncated: boolean;
}

/**
 * Sends one POST of a JSON body and reads at most {@link RESPONSE_BODY_LIMIT} bytes of the answer.
 * Redirects are never followed (a 3xx is the answer), and the timeout covers the whole exchange, body
 * included. Never throws: a network error or a timeout comes back as `error` with no status. The engine's
 * own is `createHttpPoster` (http-poster.ts); {@link fetchPoster} sends through a given fetch.
 */
export type Poster = (input: PostInput) => Promise<PostResult>;

/** The headers every attempt carries besides the signed ones. */
export const BASE_HEADERS = { "content-type": "application/json", "user-agent": "lp-webhooks/1" } as const;

/** What a failed exchange reports: `code: message` of the error's cause (fetch) or of the error (node:http). */
export function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause ?? (error as { code?: string; message?: string });
  if (cause?.code) return `${cause.code}: ${cause.message ?? "network error"}`;
  return error instanceof Error ? error.message : String(error);
}

/** A {@link Poster} over a fetch: what `WebhookOptions.fetch` sends through. */
export function fetchPoster(fetch: FetchLike): Poster {
  return async (input) => {
    const started = input.monotonic();
    // A plain controller and timer: AbortSignal.timeout() costs several times more per request.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), input.timeoutMs);
    timer.unref?.();
    const { signal } = controller;
    const latency = () => Math.max(0, Math.round(input.monotonic() - started));
    try {
      const res = await fetch(input.url, {
        method: "POST",
        body: input.body,
        headers: { ...BASE_HEADERS, ...input.headers },
        redirect: "manual",
        signal,
      });
      const success = res.status >= 200 && res.status < 300;
      const { text, truncated } = await readCapped(res);
      const redirect = res.status >= 300 && res.status < 400 ? redirectError(res.headers.get("location")) : null;
      const keep = !success || input.keepSuccessBody === true;
      return { status_code: res.status, latency_ms: latency(), error: redirect, response_body: keep ? text : null, truncated: keep && truncated };
    } catch (error) {
      const error_ = signal.aborted ? timeoutError(input.timeoutMs) : describeError(error);
      return { status_code: null, latency_ms: latency(), error: error_, response_body: null, truncated: false };
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The error of an answer that is a redirect. */
export const redirectError = (location: string | null | undefined) => `redirect to ${location ?? "(no location)"} not followed`;
/** The error of an exchange that outlived its timeout. */
export const timeoutError = (timeoutMs: number) => `timeout: no complete answer within ${timeoutMs} ms`;

async function readCapped(res: Response): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  // A small declared length is read whole (the common case, and fetch's fastest path).
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (declared >= 0 && declared <= RESPONSE_BODY_LIMIT) return { text: await res.text(), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > RESPONSE_BODY_LIMIT) {
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT);
  return { text: new TextDecoder().decode(bytes), truncated };
}
