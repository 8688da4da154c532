import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/** Resolves a host name to every address it has (A and AAAA). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** `node:dns` lookup of every address, the way the OS resolver (and so fetch) sees the name. */
export const dnsResolveHost: ResolveHost = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["fc00::", 7], // unique local (includes fd00:ec2::254, a metadata address)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["100::", 64], // discard
] as const) blocked.addSubnet(net, bits, "ipv6");

/**
 * True when `address` is a public unicast address. IPv4 embedded in IPv6 is judged by the IPv4 address
 * inside, for every prefix that carries one (DESIGN §14): IPv4-compatible `::/96`, mapped
 * `::ffff:0:0/96`, translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and 6to4 `2002::/16`. The
 * local-use NAT64 prefix `64:ff9b:1::/48` is never public.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const groups = toIpv6Groups(address);
  if (!groups) return false;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return false;
  const embedded = toEmbeddedIpv4(groups);
  if (embedded) return isPublicAddress(embedded);
  return !blocked.check(withoutZone(address), "ipv6");
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail and a zone id allowed), or null. */
export function toIpv6Groups(address: string): number[] | null {
  let text = withoutZone(address.toLowerCase());
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted.slice(2).map(Number);
    if (bytes.some((b) => b > 255)) return null;
    text = `${dotted[1]}${((bytes[0] << 8) | bytes[1]).toString(16)}:${((bytes[2] << 8) | bytes[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.some(Number.isNaN) ? null : groups;
}

function toEmbeddedIpv4(g: number[]): string | null {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (g[0] === 0x2002) return v4(g[1], g[2]); // 6to4
  if (zero(0, 6)) return v4(g[6], g[7]); // IPv4-compatible ::/96 (:: and ::1 land in 0.0.0.0/8)
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]); // mapped ::ffff:0:0/96
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6], g[7]); // translated ::ffff:0:0:0/96
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6], g[7]); // NAT64 64:ff9b::/96
  return null;
}

/** Checks receiver urls against the `publicOnly` policy. */
export interface AddressGuard {
  readonly publicOnly: boolean;
  /** Null when the url may be called, else why not (a message fit for a 400 or an attempt's error). */
  check(url: string): Promise<string | null>;
}

/**
 * With `publicOnly` off (the local default) every address is allowed: pointing a webhook at loopback
 * is the point of a local tool. With it on, the host is resolved and refused if any address is
 * private, loopback, link-local, multicast or a metadata address, so one bad record cannot slip by.
 */
export function createAddressGuard(publicOnly: boolean, resolveHost: ResolveHost = dnsResolveHost): AddressGuard {
  return {
    publicOnly,
    async check(url) {
      if (!publicOnly) return null;
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      let addresses: string[];
      try {
        addresses = isIP(host) ? [host] : await resolveHost(host);
      } catch (error) {
        return `the host '${host}' could not be resolved (${(error as NodeJS.ErrnoException).code ?? "dns error"})`;
      }
      if (addresses.length === 0) return `the host '${host}' has no addresses`;
      const bad = addresses.find((a) => !isPublicAddress(a));
      return bad ? `the host '${host}' resolves to ${bad}, a non-public address (refused with --public)` : null;
    },
  };
}

/** An IPv6 address without its zone id (`fe80::1%eth0` → `fe80::1`). */
function withoutZone(address: string): string {
  const at = address.indexOf("%");
  return at < 0 ? address : address.slice(0, at);
}
