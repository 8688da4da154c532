import { describe, expect, it } from "vitest";
import { isColor, readableOn } from "./color.js";
import { defaultTheme, globalThemePatchSchema, isFontStack, seoConfigPatchSchema, toGlobalTheme } from "./theme.js";

describe("isColor", () => {
  it.each([
    "#fff", "#FFFA", "#1d4ed8", "#1d4ed880", "rgb(0, 128, 255)", "rgba(0,128,255,0.5)", "rgb(0 128 255 / 50%)",
    "rgb(10%, 20%, 30%)", "hsl(210, 50%, 40%)", "hsla(210deg 50% 40% / .3)", "rebeccapurple", "Red", "transparent",
  ])("accepts %s", (value) => expect(isColor(value)).toBe(true));

  it.each([
    "", "#ff", "#fffff", "#ggg", "rgb(0,0)", "rgb(0,0,0,0,0)", "rgb(1, 2%, 3)", "hsl(a, b, c)", "notacolor",
    "red; background:url(x)", "red}body{", "url(https://evil.example)", "expression(alert(1))", 42, null,
  ])("rejects %j", (value) => expect(isColor(value)).toBe(false));
});

describe("globalThemePatchSchema", () => {
  it("accepts valid values and null (remove)", () => {
    const patch = { primaryColor: "#ff0000", accentColor: null, currency: "EUR", fontFamily: 'Georgia, "Times New Roman", serif' };
    expect(globalThemePatchSchema.parse(patch)).toEqual(patch);
  });

  it("rejects unknown keys with a message listing the allowed ones", () => {
    const result = globalThemePatchSchema.safeParse({ primary_color: "#fff" });
    expect(result.success).toBe(false);
    const message = result.error!.issues[0]!.message;
    expect(message).toContain("primary_color");
    for (const key of ["currency", "primaryColor", "secondaryColor", "accentColor", "backgroundColor", "textColor", "fontFamily"]) {
      expect(message).toContain(key);
    }
  });

  it.each([
    { primaryColor: "blurple" },
    { textColor: "red;}" },
    { currency: "eur" },
    { currency: "EURO" },
    { fontFamily: "Arial; color: red" },
    { fontFamily: "x</style><script>" },
    { fontFamily: '"Unclosed, serif' },
    { backgroundColor: 123 },
  ])("rejects %j", (patch) => {
    expect(globalThemePatchSchema.safeParse(patch).success).toBe(false);
  });
});

describe("seoConfigPatchSchema", () => {
  it("accepts valid values and null", () => {
    const patch = { title: "T", description: null, keywords: ["lamp", "desk"], ogImage: "https://cdn.example/og.png", noindex: true };
    expect(seoConfigPatchSchema.parse(patch)).toEqual(patch);
    expect(seoConfigPatchSchema.parse({ keywords: "lamp, desk" })).toEqual({ keywords: "lamp, desk" });
  });

  it("rejects unknown keys with a message listing the allowed ones", () => {
    const result = seoConfigPatchSchema.safeParse({ title: "ok", robots: "noindex" });
    expect(result.success).toBe(false);
    const message = result.error!.issues[0]!.message;
    expect(message).toContain("robots");
    for (const key of ["title", "description", "keywords", "ogImage", "canonicalUrl", "noindex"]) expect(message).toContain(key);
  });

  it.each([
    { ogImage: "ftp://example.com/a.png" },
    { canonicalUrl: "javascript:alert(1)" },
    { canonicalUrl: "/relative" },
    { noindex: "yes" },
    { title: "" },
    { keywords: [1, 2] },
  ])("rejects %j", (patch) => {
    expect(seoConfigPatchSchema.safeParse(patch).success).toBe(false);
  });
});

describe("theme defaults", () => {
  it("gives a complete default theme in the currency", () => {
    const theme = defaultTheme("eur");
    expect(theme.currency).toBe("EUR");
    for (const key of ["primaryColor", "secondaryColor", "accentColor", "backgroundColor", "textColor"] as const) {
      expect(isColor(theme[key])).toBe(true);
    }
    expect(isFontStack(theme.fontFamily)).toBe(true);
    expect(defaultTheme("not money").currency).toBe("USD");
  });

  it("keeps a font stack the schema accepts, counting characters as the schema does (code points)", () => {
    const astral = `"${"𝒜".repeat(150)}", serif`;
    expect(astral.length).toBeGreaterThan(200);
    expect(globalThemePatchSchema.safeParse({ fontFamily: astral }).success).toBe(true);
    expect(isFontStack(astral)).toBe(true);
    expect(toGlobalTheme({ fontFamily: astral }).fontFamily).toBe(astral);
    const tooLong = "𝒜".repeat(201);
    expect(globalThemePatchSchema.safeParse({ fontFamily: tooLong }).success).toBe(false);
    expect(isFontStack(tooLong)).toBe(false);
  });

  it("completes a partial theme and drops invalid values", () => {
    const theme = toGlobalTheme({ primaryColor: "#123456", accentColor: "bad", fontFamily: "a;b" }, "GBP");
    expect(theme).toEqual({ ...defaultTheme("GBP"), primaryColor: "#123456" });
    expect(toGlobalTheme(null).currency).toBe("USD");
  });
});

describe("readableOn", () => {
  it("picks the text colour with the better contrast", () => {
    expect(readableOn("#1d4ed8")).toBe("#ffffff");
    expect(readableOn("#f59e0b")).toBe("#111111");
    expect(readableOn("#fff")).toBe("#111111");
    expect(readableOn("#000000ff")).toBe("#ffffff");
    expect(readableOn("red")).toBe("#ffffff");
  });
});
