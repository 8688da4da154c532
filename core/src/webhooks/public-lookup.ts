import { isIP, type LookupFunction } from "node:net";
import { dnsResolveHost, isPublicAddress, type ResolveHost } from "./address-guard.js";
import type { Poster } from "./http-attempt.js";
import { createHttpPoster } from "./http-poster.js";

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
 * The HTTP client of `lp serve --public`: the engine's poster whose sockets connect only to public
 * addresses ({@link createPublicLookup}); an IP literal is judged before any socket opens. `allow` is the
 * judge of an address (tests widen it to loopback to exercise the HTTP side).
 */
export function createGuardedPoster(resolveHost: ResolveHost = dnsResolveHost, allow: (address: string) => boolean = isPublicAddress): Poster {
  return createHttpPoster({ lookup: createPublicLookup(resolveHost, allow), allow });
}
