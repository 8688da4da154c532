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
 * True when `address` is a public unicast address. IPv4 embedded in IPv6 (mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d`) is judged by the IPv4 address inside.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const embedded = toEmbeddedIpv4(address);
  if (embedded) return isPublicAddress(embedded);
  return !blocked.check(address, "ipv6");
}

function toEmbeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::ffff:0:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
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
