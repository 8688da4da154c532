import { isAccountId, isUuid } from "@lp/core";
import { jsonError } from "./guard.js";
import type { Relay } from "./trigger.js";

/**
 * `POST /_dashboard/api/upload?method=POST|PATCH&path=/v1/accounts/<account>/products[/<id>]`: relays a
 * multipart body (image files in `images`) to the products API, streamed as it arrives. Only the two routes that
 * take files are reachable; the API applies its own bounds (file count and size, sniffed image types, quotas)
 * and its refusals come back as they are.
 */
export async function relayUpload(req: Request, url: URL, relay: Relay): Promise<Response> {
  const method = url.searchParams.get("method") ?? "PATCH";
  const path = url.searchParams.get("path") ?? "";
  const [, v1, accounts, accountId, products, id, ...rest] = path.length <= 200 ? path.split("/") : [];
  const fits =
    v1 === "v1" && accounts === "accounts" && isAccountId(accountId ?? "") && products === "products" && rest.length === 0 &&
    ((method === "POST" && id === undefined) || (method === "PATCH" && isUuid(id ?? "")));
  if (!fits) return jsonError(400, "validation_error", "Uploads go to POST /v1/accounts/<account>/products or PATCH /v1/accounts/<account>/products/<id>.");
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data;/i.test(type)) return jsonError(415, "unsupported_media_type", "An upload is a multipart/form-data body.");
  const headers = new Headers({ "content-type": type });
  const length = req.headers.get("content-length");
  if (length) headers.set("content-length", length);
  const init: RequestInit & { duplex: "half" } = { method, headers, body: req.body, duplex: "half" };
  const res = await relay(new Request(new URL(path, url.origin), init));
  return new Response(res.body, { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
}
