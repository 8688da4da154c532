import { describe, expect, it } from "vitest";
import { parseSecret } from "./internal/secret-key.js";
import { generateSecret } from "./secret.js";

describe("generateSecret", () => {
  it("is whsec_ + base64 of 32 bytes, different every time", () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

describe("parseSecret", () => {
  const secret = generateSecret();
  const key = Buffer.from(secret.slice(6), "base64");

  it("decodes the base64 after the prefix, and accepts the bare base64 too", () => {
    expect(parseSecret(secret).key).toEqual(key);
    expect(parseSecret(secret.slice(6)).key).toEqual(key);
  });

  it("keeps whitespace and a doubled prefix out of the key, but knows the repair", () => {
    for (const bad of [` ${secret}`, `${secret}\n`, `whsec_${secret}`]) {
      const parsed = parseSecret(bad);
      expect(parsed.key).toBeUndefined();
      expect(parsed.repairedKey).toEqual(key);
      expect(parsed.fatal).toBeUndefined();
    }
  });

  it("is fatal for empty, non-string and non-base64 secrets", () => {
    expect(parseSecret("").fatal).toMatch(/empty/);
    expect(parseSecret(42).fatal).toMatch(/not a string/);
    expect(parseSecret("whsec_not base64!").fatal).toMatch(/base64/);
  });
});
