import type { Redis } from "ioredis";
import { sha256Hex } from "../deps.js";
import { createRedisClient } from "./redis-client.js";

/** What a process of a cluster tells the others about itself (`<prefix>members`). */
export interface MemberInfo {
  id: string;
  host: string;
  pid: number;
  /** Its own address. */
  url: string;
  /** `--public-url`, or "" when it was not given. */
  public_url: string;
  /** A fingerprint of its admin key ({@link adminFingerprint}), or "off" with `--no-admin`. */
  admin: string;
  started_at: string;
}

/** A live process of another service (another prefix) on the same Redis database. */
export interface OtherService {
  prefix: string;
}

/** What {@link joinCluster} found. */
export interface Membership {
  /** The other live processes of this service (same Redis, same prefix), as they described themselves. */
  peers: MemberInfo[];
  /** Other prefixes with live processes on the same Redis database. */
  others: OtherService[];
  /** Removes this process from the members (a clean stop); a killed one drops out when its entry expires. */
  leave(): Promise<void>;
}

/** A process that stops heart-beating drops out of `<prefix>members` after this long. */
export const MEMBER_TTL_MS = 10_000;
/** How often a member renews its entry. */
const HEARTBEAT_MS = 3_000;
/** The one key lp writes outside its prefix: which prefixes have live processes on this database. */
export const SERVICES_KEY = "lp-services";

// Prunes expired members, then (ARGV[3] = "check") refuses to join when a live member's admin key or public
// URL differs, answering 0 and the live members; else stores this member with its expiry and answers 1, the
// live members, and the other live prefixes. One script run, so two processes
// started together with different settings cannot both join.
const JOIN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = cjson.decode(ARGV[2])
local live = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local m = cjson.decode(all[i + 1])
  if tonumber(m.expires) < now then redis.call('HDEL', KEYS[1], all[i])
  elseif all[i] ~= ARGV[1] then
    if ARGV[3] == 'check' and (m.public_url ~= me.public_url or (m.admin ~= me.admin and m.admin ~= 'off' and me.admin ~= 'off')) then
      return {0, cjson.encode({m})}
    end
    table.insert(live, m)
  end
end
me.expires = now + tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(me))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local others = {}
local services = redis.call('HGETALL', KEYS[2])
for i = 1, #services, 2 do
  if tonumber(services[i + 1]) < now then redis.call('HDEL', KEYS[2], services[i])
  elseif services[i] ~= ARGV[5] then table.insert(others, services[i]) end
end
redis.call('HSET', KEYS[2], ARGV[5], now + tonumber(ARGV[4]))
-- cjson writes an empty table as {}: empty lists are spelled out.
local function list(t) if #t == 0 then return '[]' end return cjson.encode(t) end
return {1, list(live), list(others)}`;

type WithJoin = Redis & { lpJoin(members: string, services: string, id: string, me: string, mode: string, ttl: number, prefix: string): Promise<[number, string, string?]> };

/** A process whose settings differ from a live member's: why `lp serve` refuses to start. */
export class ClusterMismatchError extends Error {
  constructor(readonly peer: MemberInfo, message: string) {
    super(message);
    this.name = "ClusterMismatchError";
  }
}

/** What differs between `me` and a live `peer`, in one line, or null when they agree. */
export function describeMismatch(me: MemberInfo, peer: MemberInfo, prefix: string): string | null {
  const there = `the process at ${peer.url} (pid ${peer.pid} on ${peer.host}) already serving prefix '${prefix}' on this Redis`;
  if (me.public_url !== peer.public_url) {
    const ours = me.public_url ? `--public-url ${me.public_url}` : "no --public-url";
    const theirs = peer.public_url ? `--public-url ${peer.public_url}` : "no --public-url";
    return `this process has ${ours} but ${there} has ${theirs}; every process of a cluster needs the same one`;
  }
  if (me.admin !== peer.admin && me.admin !== "off" && peer.admin !== "off") {
    return `this process's admin key (fingerprint ${me.admin}) differs from the one of ${there} (fingerprint ${peer.admin}); give every process the same LP_ADMIN_KEY (an unset key is the one stored in Redis by the first process)`;
  }
  return null;
}

/**
 * Joins the members of the service at `prefix` on `url`: refuses (with {@link ClusterMismatchError}) when a
 * live member has another public URL or admin key, else registers this process and renews its entry every
 * 3 s until {@link Membership.leave}. A member that stops renewing drops out after {@link MEMBER_TTL_MS}.
 */
export async function joinCluster(url: string, prefix: string, me: MemberInfo, log?: (line: string) => void): Promise<Membership> {
  const client = createRedisClient(url, { name: "members", log }) as WithJoin;
  client.defineCommand("lpJoin", { numberOfKeys: 2, lua: JOIN });
  const keys = [`${prefix}members`, SERVICES_KEY] as const;
  const body = JSON.stringify(me);
  try {
    const [joined, live, others] = await client.lpJoin(...keys, me.id, body, "check", MEMBER_TTL_MS, prefix);
    const peers = JSON.parse(live) as MemberInfo[];
    if (joined !== 1) {
      const peer = peers[0];
      throw new ClusterMismatchError(peer, describeMismatch(me, peer, prefix) ?? "this process's settings differ from a live member's");
    }
    // Renewals run without the check: this process is already serving.
    const beat = setInterval(() => void client.lpJoin(...keys, me.id, body, "renew", MEMBER_TTL_MS, prefix).catch(() => {}), HEARTBEAT_MS);
    beat.unref();
    return {
      peers,
      others: (JSON.parse(others ?? "[]") as string[]).map((p) => ({ prefix: p })),
      async leave() {
        clearInterval(beat);
        await client.hdel(keys[0], me.id).catch(() => {});
        client.disconnect();
      },
    };
  } catch (error) {
    client.disconnect();
    throw error;
  }
}

/**
 * A fingerprint of an admin key that processes compare and print: 12 hex digits of a SHA-256 with a label,
 * enough to tell keys apart, not to recover one (anyone who can read Redis can read the service anyway).
 */
export function adminFingerprint(key: string | null): string {
  return key === null ? "off" : sha256Hex(`lp admin key\n${key}`).slice(0, 12);
}
