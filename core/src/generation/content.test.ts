import { describe, expect, it } from "vitest";
import { pageContentSchema } from "./content.js";

const valid = {
  language: "en",
  headline: "Headline",
  subheadline: "Sub",
  sections: [
    { type: "hero", id: "hero", headline: "H", subheadline: "S", cta_label: "Buy", image_url: null },
    { type: "details", id: "details", title: "D", text: "More about it." },
    { type: "benefits", id: "benefits", title: "Why", items: [1, 2, 3].map((n) => ({ title: `B${n}`, text: "t" })) },
    { type: "gallery", id: "gallery", title: "G", images: [{ url: "/media/a.png", alt: "a" }] },
    { type: "faq", id: "faq", title: "F", items: [{ question: "q?", answer: "a" }] },
    { type: "offer", id: "offer", title: "O", text: "t", cta_label: "Buy" },
    { type: "checkout", id: "checkout", title: "C", submit_label: "Send" },
  ],
};

describe("pageContentSchema", () => {
  it("accepts every section type", () => {
    expect(pageContentSchema.parse(valid)).toEqual(valid);
  });

  it("rejects an unknown section type", () => {
    expect(pageContentSchema.safeParse({ ...valid, sections: [{ type: "video", id: "v" }] }).success).toBe(false);
  });

  it("rejects duplicate section ids", () => {
    const result = pageContentSchema.safeParse({ ...valid, sections: [valid.sections[0], { ...valid.sections[5], id: "hero" }] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toContain("duplicate");
  });

  it("has no place for testimonials, and drops an offer's guarantee", () => {
    const testimonials = { type: "social_proof", id: "social-proof", title: "S", items: [{ quote: "q", author: "a", role: "r" }] };
    expect(pageContentSchema.safeParse({ ...valid, sections: [testimonials] }).success).toBe(false);
    const offer = { ...valid.sections[5], guarantee: "30-day money-back guarantee" };
    expect(JSON.stringify(pageContentSchema.parse({ ...valid, sections: [offer] }))).not.toContain("guarantee");
  });

  it("bounds benefits to 1-6 items", () => {
    const benefits = valid.sections[2] as { items: unknown[] };
    const withItems = (n: number) => ({
      ...valid,
      sections: [{ ...benefits, items: Array.from({ length: n }, (_, i) => ({ title: `b${i}`, text: "t" })) }],
    });
    expect(pageContentSchema.safeParse(withItems(0)).success).toBe(false);
    expect(pageContentSchema.safeParse(withItems(1)).success).toBe(true);
    expect(pageContentSchema.safeParse(withItems(7)).success).toBe(false);
    expect(pageContentSchema.safeParse(withItems(6)).success).toBe(true);
  });

  it("rejects image URLs that are not http(s) or host paths", () => {
    const gallery = (url: string) => ({ ...valid, sections: [{ ...valid.sections[3], images: [{ url, alt: "a" }] }] });
    expect(pageContentSchema.safeParse(gallery("javascript:alert(1)")).success).toBe(false);
    expect(pageContentSchema.safeParse(gallery("//evil.example/a.png")).success).toBe(false);
    expect(pageContentSchema.safeParse(gallery("https://cdn.example/a.png")).success).toBe(true);
  });

  it("rejects empty strings and missing fields", () => {
    expect(pageContentSchema.safeParse({ ...valid, headline: "  " }).success).toBe(false);
    expect(pageContentSchema.safeParse({ language: "en", headline: "x" }).success).toBe(false);
  });
});
