import { contentSecurityPolicy } from "@lp/core";
import { PlainResponse } from "./respond.js";

/**
 * Who may show an HTML answer in a frame: nobody (`none`: sites and their checkout answers, which nothing
 * of ours frames), or pages of this origin (`self`: the builder preview, which the dashboard frames).
 */
export type FramePolicy = "none" | "self";

/**
 * The headers of every HTML answer. The page's own `<meta>` policy stays, but a meta tag cannot carry
 * `frame-ancestors`: the header is the policy that counts, and X-Frame-Options covers older browsers.
 */
export function htmlHeaders(frames: FramePolicy): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `${contentSecurityPolicy}; frame-ancestors '${frames}'`,
    "x-frame-options": frames === "none" ? "DENY" : "SAMEORIGIN",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}

// Built once: every HTML answer of a policy carries the same ones.
const prepared: Record<FramePolicy, Record<string, string>> = { none: htmlHeaders("none"), self: htmlHeaders("self") };

/**
 * An HTML response with {@link htmlHeaders}, sent on the pipeline's plain-header path (respond.ts); a global
 * `Response` with a string body goes through a web stream, several times slower.
 */
export function htmlResponse(body: string, frames: FramePolicy, status = 200, headers: Record<string, string> = {}): PlainResponse {
  return new PlainResponse(body, { status, headers: { ...prepared[frames], ...headers } }, true);
}
