import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { deriveOgImage } from "../generation/page-images.js";
import { createMediaStore } from "./media-store.js";
import { mediaTypeFromUrl, sniffImageType } from "./sniff.js";

const hex = (h: string) => Buffer.from(h.replace(/ /g, ""), "hex");

describe("media store", () => {
  it("stores, serves and removes media under checked paths only", async () => {
    const storage = createStorage();
    const media = createMediaStore(storage, () => "http://lp.test");
    await media.put("products/abc/img-1.png", hex("89504e47"));
    await media.put("pages/p1/hero.svg", "<svg/>");
    expect(media.urlOf("products/abc/img-1.png")).toBe("http://lp.test/media/products/abc/img-1.png");
    expect(await media.get("products/abc/img-1.png")).toEqual({ bytes: hex("89504e47"), mediaType: "image/png" });
    expect((await media.get("pages/p1/hero.svg"))?.mediaType).toBe("image/svg+xml");
    for (const bad of ["../meta/x.png", "products/../x.png", "products/abc/img-1.exe", "products//x.png", "/products/x.png", "products/a:b/x.png", "x.png", "Products/a/x.png"]) {
      expect(media.isValidPath(bad), bad).toBe(false);
      expect(await media.get(bad)).toBeNull();
      await expect(media.put(bad, "x")).rejects.toThrow();
    }
    await media.removePrefix("products/abc");
    expect(await media.get("products/abc/img-1.png")).toBeNull();
    expect(await media.get("pages/p1/hero.svg")).not.toBeNull();
  });

  it("lists stored paths, all or under a prefix of whole segments, and removes one path", async () => {
    const media = createMediaStore(createStorage(), () => "http://lp.test");
    for (const path of ["products/ab/2.png", "products/ab/1.png", "products/abc/3.png", "pages/p1/hero.svg"]) await media.put(path, "x");
    expect(await media.paths()).toEqual(["pages/p1/hero.svg", "products/ab/1.png", "products/ab/2.png", "products/abc/3.png"]);
    expect(await media.paths("products/ab")).toEqual(["products/ab/1.png", "products/ab/2.png"]);
    await media.remove("products/ab/1.png");
    await media.remove("products/ab/9.png");
    await expect(media.remove("products/../x.png")).rejects.toThrow();
    expect(await media.paths("products")).toEqual(["products/ab/2.png", "products/abc/3.png"]);
    await media.removePrefix("products/ab");
    expect(await media.paths()).toEqual(["pages/p1/hero.svg", "products/abc/3.png"]);
  });
});

describe("derived media", () => {
  const hero = '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630"><rect width="1200" height="630" fill="#0a7d3b"/></svg>';
  const hash = "0123456789abcdef0123";

  it("draws a page's Open Graph PNG from its hero SVG on first request, once, then serves the stored bytes", async () => {
    const storage = createStorage();
    let drawn = 0;
    const media = createMediaStore(storage, () => "http://lp.test", async (path, read) => {
      const png = await deriveOgImage(path, read);
      if (png) drawn += 1;
      return png;
    });
    await media.put(`pages/p1/hero-${hash}.svg`, hero);
    const path = `pages/p1/og-${hash}.png`;
    expect(await storage.hasItem(`pages:p1:og-${hash}.png`)).toBe(false);
    const answers = await Promise.all(Array.from({ length: 5 }, () => media.get(path)));
    expect(drawn).toBe(1);
    for (const answer of answers) {
      expect(answer!.mediaType).toBe("image/png");
      expect(answer!.bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
      expect([answer!.bytes.readUInt32BE(16), answer!.bytes.readUInt32BE(20)]).toEqual([1200, 630]);
    }
    expect(await storage.hasItem(`pages:p1:og-${hash}.png`)).toBe(true);
    await media.get(path);
    expect(drawn).toBe(1);
  });

  it("derives nothing without the hero of the same hash, nor for other paths", async () => {
    const media = createMediaStore(createStorage(), () => "http://lp.test", deriveOgImage);
    await media.put(`pages/p1/hero-${hash}.svg`, hero);
    expect(await media.get("pages/p1/og-ffffffffffffffffffff.png")).toBeNull();
    expect(await media.get(`pages/p2/og-${hash}.png`)).toBeNull();
    expect(await media.get(`products/p1/og-${hash}.png`)).toBeNull();
  });
});

describe("image sniffing", () => {
  it("judges images by their bytes", () => {
    expect(sniffImageType(hex("89504e470d0a1a0a 0000"))).toBe("image/png");
    expect(sniffImageType(hex("ffd8ffe0 0010"))).toBe("image/jpeg");
    expect(sniffImageType(Buffer.from("GIF89a...."))).toBe("image/gif");
    expect(sniffImageType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniffImageType(Buffer.concat([hex("00000020"), Buffer.from("ftypavif")]))).toBe("image/avif");
    expect(sniffImageType(Buffer.from("\uFEFF<?xml version=\"1.0\"?>\n<!-- c --><svg xmlns=\"x\"></svg>"))).toBe("image/svg+xml");
    for (const bad of ["<html><svg></svg></html>", "GIF88a", "RIFF\0\0\0\0WAVE", "", "<svgx>", "\u0000<svg>"]) {
      expect(sniffImageType(Buffer.from(bad)), JSON.stringify(bad)).toBeNull();
    }
    expect(sniffImageType(hex("89504e47"))).toBeNull();
  });

  it("guesses URL image types from the extension, defaulting to JPEG", () => {
    expect(mediaTypeFromUrl("https://x/a.PNG?v=1#f")).toBe("image/png");
    expect(mediaTypeFromUrl("https://x/a.webp")).toBe("image/webp");
    expect(mediaTypeFromUrl("https://x/photo")).toBe("image/jpeg");
    expect(mediaTypeFromUrl("https://x.png/photo")).toBe("image/jpeg");
  });
});
