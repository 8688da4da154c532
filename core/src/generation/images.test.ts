import { describe, expect, it } from "vitest";
import { defaultTheme } from "../render/theme.js";
import { createHeroSvg, createPlaceholderSvg, initialOf } from "./images.js";
import { wrapText } from "./svg-text.js";

/**
 * A small well-formedness check: tags balance, attributes are quoted, text holds no raw `<` and
 * every `&` starts an entity. Returns the root element name and the decoded text content.
 */
function parseXml(xml: string): { root: string; text: string } {
  const tag = /<(\/)?([A-Za-z][\w.:-]*)((?:\s+[A-Za-z_:][\w.:-]*="[^"<]*")*)\s*(\/)?>/y;
  const entity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i;
  const stack: string[] = [];
  let root = "";
  let text = "";
  let pos = 0;
  while (pos < xml.length) {
    const lt = xml.indexOf("<", pos);
    const chunk = xml.slice(pos, lt === -1 ? xml.length : lt);
    if (entity.test(chunk) || chunk.includes(">")) throw new Error(`bad text: ${chunk}`);
    if (stack.length === 0 && chunk.trim()) throw new Error(`text outside the root: ${chunk}`);
    text += chunk;
    if (lt === -1) break;
    tag.lastIndex = lt;
    const match = tag.exec(xml);
    if (!match) throw new Error(`malformed tag at ${lt}: ${xml.slice(lt, lt + 60)}`);
    const [whole, closing, name, attributes, selfClosing] = match;
    if (entity.test(attributes!)) throw new Error(`bad attribute: ${attributes}`);
    const names = [...attributes!.matchAll(/([\w.:-]+)="/g)].map((m) => m[1]);
    if (new Set(names).size !== names.length) throw new Error(`duplicate attribute in ${whole}`);
    if (closing) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`);
    } else {
      if (!root) root = name!;
      else if (stack.length === 0) throw new Error("second root element");
      if (!selfClosing) stack.push(name!);
    }
    pos = lt + whole.length;
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(", ")}`);
  const decoded = text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
  return { root, text: decoded };
}

const theme = { ...defaultTheme("EUR"), primaryColor: "#112233", secondaryColor: "rgb(10, 20, 30)", accentColor: "gold" };
const nasty = `Tom & Jerry <script>alert("x")</script> 'quoted' \u0001`;

describe("SVG images", () => {
  it("draws a well-formed 1200x630 hero from the theme, with the initial and no words", () => {
    const svg = createHeroSvg({ title: nasty, product_type: "physical", theme });
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg).toContain('width="1200" height="630"');
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg).toContain('stop-color="#112233"');
    expect(svg).toContain('stop-color="rgb(10, 20, 30)"');
    expect(svg).toContain('fill="gold"');
    expect(svg).not.toContain("<script");
    const { root, text } = parseXml(svg);
    expect(root).toBe("svg");
    // The initial is the only text: the page already says the name and the description.
    expect(text).toBe("T");
    expect(svg).not.toContain("Jerry");
    expect(svg).not.toContain("\u0001");
  });

  it("marks the product type with a glyph, and draws it alone when the name has no letter", () => {
    const parcel = createHeroSvg({ title: "Lamp", product_type: "physical", theme });
    const calendar = createHeroSvg({ title: "Lamp", product_type: "service", theme });
    expect(parcel).not.toBe(calendar);
    expect(calendar).toContain("<rect x=\"-27\"");
    const symbols = createHeroSvg({ title: "★ ★ ★", product_type: "service", theme });
    expect(parseXml(symbols).text).toBe("");
    expect(symbols).toContain("scale(3)");
  });

  it("takes the first letter or digit, upper-cased in the page's language", () => {
    expect(initialOf("  oak desk lamp")).toBe("O");
    expect(initialOf("«élan»", "fr")).toBe("É");
    expect(initialOf("istanbul", "tr")).toBe("İ");
    expect(initialOf("42 mugs")).toBe("4");
    expect(initialOf("!!!")).toBeNull();
  });

  it("creates a well-formed placeholder", () => {
    const svg = createPlaceholderSvg("<Untitled> & co");
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(parseXml(svg).text).toContain("<Untitled> & co");
  });

  it("does not let a theme value break out of an attribute", () => {
    const evil = { ...theme, primaryColor: '#fff" onload="alert(1)', fontFamily: "x\"><script>alert(1)</script>" };
    const svg = createHeroSvg({ title: "T", product_type: "physical", theme: evil });
    expect(svg).not.toContain("onload");
    expect(svg).not.toContain("<script");
    expect(svg).toContain(`stop-color="${defaultTheme("EUR").primaryColor}"`);
    parseXml(svg);
  });
});

describe("wrapText", () => {
  it("wraps on words and cuts words longer than a line", () => {
    expect(wrapText("one two three four", 9, 5)).toEqual(["one two", "three", "four"]);
    expect(wrapText("abcdefghij", 4, 5)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapText("", 10, 2)).toEqual([]);
  });

  it("ends a truncated text with an ellipsis", () => {
    expect(wrapText("aaa bbb ccc ddd", 7, 1)).toEqual(["aaa bb…"]);
  });
});
