import { isAccountId, isUuid, notFound } from "@lp/core";
import { createPlaceholderSvg } from "@lp/core";
import { defineRoute, type RouteDef } from "../http/route.js";

/** Uploaded SVGs may carry scripts: served with a policy that runs none of them. */
const MEDIA_HEADERS = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
};

/** Stored media and product placeholders. Public, like the hosted service's media addresses. */
export const mediaRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/media/placeholders/:account_id/:file",
    plane: "none",
    internal: true,
    handler: async ({ server, params }) => {
      const id = params.file.replace(/\.svg$/, "");
      if (!isAccountId(params.account_id) || !isUuid(id) || !params.file.endsWith(".svg")) throw notFound("media");
      const product = await server.core.products.readAny(params.account_id, id);
      if (!product) throw notFound("media");
      return new Response(createPlaceholderSvg(product.title), {
        headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=300", ...MEDIA_HEADERS },
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/media/**:path",
    plane: "none",
    internal: true,
    handler: async ({ server, params }) => {
      // Shape, segment count and length are checked before any storage key is made (a path of thousands of
      // segments was a file name too long for the file-per-record store of format 1).
      const path = params.path ?? "";
      if (!server.core.media.isValidPath(path)) throw notFound("media");
      const found = await server.core.media.get(path);
      if (!found) throw notFound("media");
      return new Response(new Uint8Array(found.bytes), {
        headers: {
          "content-type": found.mediaType,
          "content-length": String(found.bytes.byteLength),
          // Media paths embed a fresh id per upload, so their bytes never change.
          "cache-control": "public, max-age=31536000, immutable",
          ...MEDIA_HEADERS,
        },
      });
    },
  }),
];
