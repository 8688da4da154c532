import { isColor, readableOn } from "../render/color.js";
import { defaultTheme, isFontStack, type GlobalTheme } from "../render/theme.js";
import { escapeXml, wrapText } from "./svg-text.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Theme values made safe for SVG attributes: anything that fails validation takes the default. */
function safeTheme(theme: GlobalTheme) {
  const fallback = defaultTheme("USD");
  const pick = (key: "primaryColor" | "secondaryColor" | "accentColor" | "backgroundColor" | "textColor") =>
    escapeXml(isColor(theme?.[key]) ? theme[key].trim() : fallback[key]);
  return {
    primary: pick("primaryColor"),
    secondary: pick("secondaryColor"),
    accent: pick("accentColor"),
    background: pick("backgroundColor"),
    text: pick("textColor"),
    rawPrimary: isColor(theme?.primaryColor) ? theme.primaryColor.trim() : fallback.primaryColor,
    font: escapeXml(isFontStack(theme?.fontFamily) ? theme.fontFamily : fallback.fontFamily),
  };
}

/** `<tspan>` lines of a text block, each on its own baseline. */
function tspans(lines: string[], x: number, lineHeight: number): string {
  return lines.map((line, i) => `<tspan x="${x}" dy="${i === 0 ? 0 : lineHeight}">${escapeXml(line)}</tspan>`).join("");
}

/** The product's initial: its first letter or digit, upper-cased in the page's language; null if it has none. */
export function initialOf(title: string, language = "en"): string | null {
  const first = /[\p{L}\p{N}]/u.exec(title ?? "")?.[0];
  if (!first) return null;
  try {
    return first.toLocaleUpperCase(language);
  } catch {
    return first.toUpperCase();
  }
}

/** Line drawings, centred on 0,0 and about 60 units wide: a parcel for a product, a calendar for a service. */
const glyphs = {
  physical:
    `<path d="M-26 -14 L0 -28 L26 -14 L26 16 L0 30 L-26 16 Z"/><path d="M-26 -14 L0 0 L26 -14"/><path d="M0 0 V30"/><path d="M-13 -21 L13 -7"/>`,
  service:
    `<rect x="-27" y="-22" width="54" height="50" rx="8"/><path d="M-27 -8 H27"/><path d="M-13 -30 V-15"/><path d="M13 -30 V-15"/>` +
    `<path d="M-14 6 H-10 M-2 6 H2 M10 6 H14 M-14 17 H-10 M-2 17 H2"/>`,
};

/**
 * The hero picture of a product without photos, 1200x630 (the Open Graph size): a composition in the
 * theme's colours (its background, soft discs of the primary and secondary colours, a dotted field, an
 * accent tile) around a disc holding the product's initial, with a glyph for its type (a parcel or a
 * calendar). It carries no words: the page already says them, and a picture that repeats the headline
 * in small type adds nothing. The page shows it with an empty alt text, as decoration.
 */
export function createHeroSvg(input: { title: string; product_type: "physical" | "service"; theme: GlobalTheme; language?: string }): string {
  const t = safeTheme(input.theme);
  const ink = escapeXml(readableOn(t.rawPrimary));
  const initial = initialOf(input.title, input.language);
  const glyph = glyphs[input.product_type === "service" ? "service" : "physical"];
  const lines = `fill="none" stroke-linecap="round" stroke-linejoin="round"`;
  // Without an initial (a name of symbols only), the glyph takes the disc's centre.
  const centre = initial
    ? `<text x="600" y="388" text-anchor="middle" font-family="${t.font}" font-size="200" font-weight="800" fill="${ink}">${escapeXml(initial)}</text>` +
      `<circle cx="728" cy="438" r="62" fill="${t.background}" stroke="${t.accent}" stroke-width="8"/>` +
      `<g transform="translate(728 440)" ${lines} stroke="${t.primary}" stroke-width="6">${glyph}</g>`
    : `<g transform="translate(600 318) scale(3)" ${lines} stroke="${ink}" stroke-width="3">${glyph}</g>`;
  return [
    `<svg xmlns="${SVG_NS}" width="1200" height="630" viewBox="0 0 1200 630" aria-hidden="true">`,
    `<defs>`,
    `<linearGradient id="hero-disc" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${t.primary}"/><stop offset="1" stop-color="${t.secondary}"/></linearGradient>`,
    `<pattern id="hero-dots" width="28" height="28" patternUnits="userSpaceOnUse"><circle cx="4" cy="4" r="3" fill="${t.primary}" fill-opacity="0.22"/></pattern>`,
    `</defs>`,
    `<rect width="1200" height="630" fill="${t.background}"/>`,
    `<circle cx="1010" cy="90" r="250" fill="${t.primary}" fill-opacity="0.12"/>`,
    `<circle cx="150" cy="590" r="230" fill="${t.secondary}" fill-opacity="0.14"/>`,
    `<rect x="60" y="50" width="280" height="196" fill="url(#hero-dots)"/>`,
    `<rect x="880" y="400" width="252" height="168" fill="url(#hero-dots)"/>`,
    `<rect x="418" y="134" width="364" height="364" rx="84" fill="${t.accent}" fill-opacity="0.85" transform="rotate(-9 600 316)"/>`,
    `<circle cx="600" cy="316" r="176" fill="url(#hero-disc)"/>`,
    `<circle cx="600" cy="316" r="204" fill="none" stroke="${t.primary}" stroke-opacity="0.25" stroke-width="3" stroke-dasharray="2 14" stroke-linecap="round"/>`,
    `<path d="M190 150 q40 -40 80 0 t80 0" fill="none" stroke="${t.accent}" stroke-width="8" stroke-linecap="round"/>`,
    `<circle cx="1000" cy="300" r="18" fill="${t.accent}"/>`,
    `<circle cx="245" cy="420" r="11" fill="${t.primary}" fill-opacity="0.5"/>`,
    centre,
    `</svg>`,
  ].join("");
}

/** An 800x800 neutral picture placeholder with the product title, for products without images. */
export function createPlaceholderSvg(title: string): string {
  const lines = wrapText(title ?? "", 30, 2);
  const font = escapeXml(defaultTheme("USD").fontFamily);
  return [
    `<svg xmlns="${SVG_NS}" width="800" height="800" viewBox="0 0 800 800" role="img" aria-label="${escapeXml(title ?? "")}">`,
    `<defs><linearGradient id="placeholder-bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#f3f4f6"/><stop offset="1" stop-color="#e5e7eb"/></linearGradient></defs>`,
    `<rect width="800" height="800" fill="url(#placeholder-bg)"/>`,
    `<rect x="250" y="200" width="300" height="230" rx="24" fill="none" stroke="#9ca3af" stroke-width="14"/>`,
    `<circle cx="330" cy="275" r="28" fill="#9ca3af"/>`,
    `<polygon points="270,410 370,310 430,370 470,330 530,410" fill="#9ca3af"/>`,
    `<text x="400" y="540" text-anchor="middle" font-family="${font}" font-size="36" font-weight="600" fill="#4b5563">${tspans(lines, 400, 46)}</text>`,
    `</svg>`,
  ].join("");
}
