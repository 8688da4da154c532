/** The fetch the engine sends with (injected; the global one by default). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Largest response body kept on an attempt. */
export const RESPONSE_BODY_LIMIT = 4096;

/** One POST to a receiver. */
export interface PostInput {
  fetch: FetchLike;
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
 * POSTs a JSON body and reads at most {@link RESPONSE_BODY_LIMIT} bytes of the answer. Redirects are
 * never followed (a 3xx is the answer), and the timeout covers the whole exchange, body included.
 * Never throws: a network error or a timeout comes back as `error` with no status.
 */
export async function postJson(input: PostInput): Promise<PostResult> {
  const started = input.monotonic();
  // A plain controller and timer: AbortSignal.timeout() costs several times more per request.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), input.timeoutMs);
  timer.unref?.();
  const { signal } = controller;
  const latency = () => Math.max(0, Math.round(input.monotonic() - started));
  try {
    const res = await input.fetch(input.url, {
      method: "POST",
      body: input.body,
      headers: { "content-type": "application/json", "user-agent": "lp-webhooks/1", ...input.headers },
      redirect: "manual",
      signal,
    });
    const success = res.status >= 200 && res.status < 300;
    const { text, truncated } = await readCapped(res);
    const redirect = res.status >= 300 && res.status < 400 ? `redirect to ${res.headers.get("location") ?? "(no location)"} not followed` : null;
    const keep = !success || input.keepSuccessBody === true;
    return { status_code: res.status, latency_ms: latency(), error: redirect, response_body: keep ? text : null, truncated: keep && truncated };
  } catch (error) {
    return { status_code: null, latency_ms: latency(), error: describeError(error, signal, input.timeoutMs), response_body: null, truncated: false };
  } finally {
    clearTimeout(timer);
  }
}

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

function describeError(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `timeout: no complete answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}: ${cause.message ?? "network error"}`;
  return error instanceof Error ? error.message : String(error);
}
