import { hostname } from "node:os";
import { adminFingerprint, joinCluster, type Core, type Membership } from "@lp/core";

/** What this process says about itself when it joins the others on the same Redis and prefix. */
export interface MemberSettings {
  /** Its own address. */
  url: string;
  /** `--public-url`, "" when not given. */
  publicUrl: string;
  /** Its admin key; null with `--no-admin`. */
  adminKey: string | null;
}

/**
 * Joins the live processes of the service on `redis` (same URL and prefix): refuses to start when one of
 * them has another public URL or admin key (a {@link ClusterMismatchError} with one line saying which), and
 * says at start how many processes it joined, its admin key's fingerprint, and other services it sees on
 * the same Redis database (a mistyped `--redis-prefix` starts an empty service beside the real one).
 */
export async function joinAsMember(redis: { url: string; prefix: string }, core: Core, settings: MemberSettings & { hadData: boolean }): Promise<{ membership: Membership; notices: string[] }> {
  const admin = adminFingerprint(settings.adminKey);
  const membership = await joinCluster(redis.url, redis.prefix, {
    id: core.ids.uuid(),
    host: hostname(),
    pid: process.pid,
    url: settings.url,
    public_url: settings.publicUrl,
    admin,
    started_at: core.clock.now().toISOString(),
  });
  const peers = membership.peers.length;
  const notices = [
    `cluster: prefix '${redis.prefix}', ${peers === 0 ? "first live process" : `joined ${peers} live process${peers === 1 ? "" : "es"}`}${admin === "off" ? "" : `, admin key fingerprint ${admin}`}`,
  ];
  const others = membership.others.map((o) => `'${o.prefix}'`);
  if (others.length > 0) {
    const lone = peers === 0 && !settings.hadData;
    notices.push(
      lone
        ? `warning: prefix '${redis.prefix}' held no data and has no other process, while this Redis database serves live processes under ${others.join(", ")}: check --redis-prefix if this process should join them`
        : `this Redis database also serves live processes under ${others.join(", ")}`,
    );
  }
  const switchedOff = membership.peers.filter((p) => (p.admin === "off") !== (admin === "off")).length;
  if (switchedOff > 0) notices.push(`note: ${switchedOff} live process(es) ${admin === "off" ? "serve" : "do not serve"} /_admin; behind one load balancer, admin calls then succeed on some processes only`);
  return { membership, notices };
}
