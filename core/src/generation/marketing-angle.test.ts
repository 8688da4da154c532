import { describe, expect, it } from "vitest";
import { parseMarketingAngle } from "./marketing-angle.js";

describe("parseMarketingAngle", () => {
  it.each([
    ["Luxury", "luxury"],
    ["high-end look", "luxury"],
    ["best VALUE for students", "budget"],
    ["Discount week", "budget"],
    ["eco-friendly", "eco"],
    ["100% organic cotton", "eco"],
    ["Limited edition", "urgency"],
    ["Geschenk für Mama", "gift"],
    ["produit écologique", "eco"],
  ])("reads %j as %s", (angle, tone) => {
    expect(parseMarketingAngle(angle)).toEqual({ tone, custom: null });
  });

  it("matches whole words only", () => {
    expect(parseMarketingAngle("well known economists").tone).toBe("neutral");
  });

  it("keeps other text verbatim, tidied", () => {
    expect(parseMarketingAngle("  for   night-shift nurses!! ")).toEqual({ tone: "neutral", custom: "for night-shift nurses" });
    expect(parseMarketingAngle("   ")).toEqual({ tone: "neutral", custom: null });
    expect(parseMarketingAngle(undefined)).toEqual({ tone: "neutral", custom: null });
  });
});
