import { describe, expect, it } from "vitest";
import { createAddressGuard, isPublicAddress } from "./address-guard.js";

describe("address guard", () => {
  it("tells public unicast addresses from private, loopback, link-local, metadata and reserved ones", () => {
    const publicOnes = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"];
    const privateOnes = [
      "127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.0.1", "169.254.169.254", "100.64.0.1",
      "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1",
      "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "64:ff9b::10.0.0.1", "not-an-ip",
    ];
    for (const a of publicOnes) expect(isPublicAddress(a), a).toBe(true);
    for (const a of privateOnes) expect(isPublicAddress(a), a).toBe(false);
  });

  it("judges IPv4 embedded in IPv6 by the IPv4 inside, for every prefix that carries one", () => {
    const privateOnes = [
      "::7f00:1", "::127.0.0.1", "0:0:0:0:0:0:a00:1", // IPv4-compatible ::/96
      "::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:a9fe:a9fe", // translated ::ffff:0:0:0/96
      "0:0:0:0:0:ffff:7f00:1", "::FFFF:127.0.0.1", // mapped, spelled out or in capitals
      "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", // NAT64
      "64:ff9b:1::7f00:1", "64:ff9b:1::808:808", // local-use NAT64: never public
      "2002:7f00:1::1", "2002:a00:1::", "2002:a9fe:a9fe::1", // 6to4
      "fe80::1%eth0", "::1%lo", "1::2::3", "12345::1",
    ];
    const publicOnes = ["::808:808", "::ffff:0:808:808", "64:ff9b::808:808", "2002:808:808::1", "2606:4700::7f00:1"];
    for (const a of privateOnes) expect(isPublicAddress(a), a).toBe(false);
    for (const a of publicOnes) expect(isPublicAddress(a), a).toBe(true);
  });

  it("allows everything when publicOnly is off, without resolving", async () => {
    const guard = createAddressGuard(false, async () => {
      throw new Error("must not resolve");
    });
    expect(await guard.check("http://127.0.0.1:9/x")).toBeNull();
  });

  it("with publicOnly, refuses a host if any of its addresses is not public", async () => {
    const guard = createAddressGuard(true, async (host) => ({ a: ["1.1.1.1"], b: ["1.1.1.1", "10.0.0.1"] })[host] ?? []);
    expect(await guard.check("https://a/")).toBeNull();
    expect(await guard.check("https://b/")).toMatch(/10\.0\.0\.1/);
    expect(await guard.check("https://c/")).toMatch(/no addresses/);
    expect(await guard.check("http://[fe80::1]/")).toMatch(/non-public/);
  });
});
