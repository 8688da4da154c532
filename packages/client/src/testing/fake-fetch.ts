import type { FetchLike } from "../transport.js";

/** A request as the fake saw it. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | FormData | null;
}

type Reply = { status?: number; body?: unknown; headers?: Record<string, string> };

/**
 * A fetch double for routes the local server does not serve yet: records requests and answers from
 * `respond`, which sees each request and returns a status and a JSON body.
 */
export function createFakeFetch(respond: (req: SeenRequest, index: number) => Reply | Promise<Reply>) {
  const seen: SeenRequest[] = [];
  const fetch: FetchLike = async (input, init = {}) => {
    const request = new Request(input, init);
    const type = request.headers.get("content-type") ?? "";
    const body = request.body === null ? null : type.startsWith("multipart/") ? await request.formData() : await request.text();
    const req: SeenRequest = { method: request.method, url: new URL(request.url), headers: request.headers, body };
    seen.push(req);
    const reply = await respond(req, seen.length - 1);
    const status = reply.status ?? 200;
    const text = reply.body === undefined || status === 204 ? null : JSON.stringify(reply.body);
    return new Response(text, { status, headers: { "content-type": "application/json", "x-request-id": "req_fake", ...reply.headers } });
  };
  return { fetch, seen };
}
