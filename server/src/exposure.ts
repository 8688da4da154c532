import { isIP } from "node:net";

/** Shortest admin key accepted when `/_admin` is reachable from the network (DESIGN §14). */
export const MIN_NETWORK_ADMIN_KEY_LENGTH = 32;

/** True when `host` binds loopback only: `localhost`, 127.0.0.0/8, `::1` (or 127.x mapped into IPv6). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h);
  return false;
}

/** Why `adminKey` may not guard `/_admin` on `host`, or null when it may. */
export function toAdminExposureProblem(host: string, adminKey: string | undefined): string | null {
  if (isLoopbackHost(host) || adminKey === undefined || adminKey.length >= MIN_NETWORK_ADMIN_KEY_LENGTH) return null;
  return (
    `--host ${host} makes /_admin (which mints tokens) reachable from the network, and LP_ADMIN_KEY is ${adminKey.length} characters: ` +
    `use at least ${MIN_NETWORK_ADMIN_KEY_LENGTH} (or leave LP_ADMIN_KEY unset for a generated one), or pass --no-admin.`
  );
}

/**
 * Refuses a short admin key on a non-loopback bind. A generated key is always long enough, so only an
 * explicit one can fail; the CLI makes the same check first, to exit 2 as for any usage error.
 */
export function assertAdminExposure(host: string, adminKey: string | undefined): void {
  const problem = toAdminExposureProblem(host, adminKey);
  if (problem) throw new Error(problem);
}
