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

/**
 * The page's hero image, 1200x630 (the Open Graph size): a diagonal gradient from the primary to
 * the secondary colour, an accent glow, and the wrapped title and subtitle.
 */
export function createHeroSvg(input: { title: string; subtitle: string; theme: GlobalTheme }): string {
  const t = safeTheme(input.theme);
  const ink = readableOn(t.rawPrimary);
  const title = wrapText(input.title, 28, 3);
  const subtitle = wrapText(input.subtitle ?? "", 60, 2);
  const blockHeight = title.length * 76 + (subtitle.length ? 28 + subtitle.length * 40 : 0);
  const titleY = Math.round((630 - blockHeight) / 2 + 60);
  const subtitleY = titleY + (title.length - 1) * 76 + 28 + 40;
  return [
    `<svg xmlns="${SVG_NS}" width="1200" height="630" viewBox="0 0 1200 630" role="img" aria-label="${escapeXml(input.title)}">`,
    `<defs>`,
    `<linearGradient id="hero-bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${t.primary}"/><stop offset="1" stop-color="${t.secondary}"/></linearGradient>`,
    `<radialGradient id="hero-glow" cx="0.85" cy="0.15" r="0.6"><stop offset="0" stop-color="${t.accent}" stop-opacity="0.55"/><stop offset="1" stop-color="${t.accent}" stop-opacity="0"/></radialGradient>`,
    `</defs>`,
    `<rect width="1200" height="630" fill="url(#hero-bg)"/>`,
    `<rect width="1200" height="630" fill="url(#hero-glow)"/>`,
    `<circle cx="1090" cy="580" r="190" fill="${t.accent}" fill-opacity="0.18"/>`,
    `<circle cx="120" cy="40" r="90" fill="${ink}" fill-opacity="0.06"/>`,
    `<rect x="80" y="${titleY - 100}" width="96" height="8" rx="4" fill="${t.accent}"/>`,
    `<text x="80" y="${titleY}" font-family="${t.font}" font-size="64" font-weight="700" fill="${ink}">${tspans(title, 80, 76)}</text>`,
    subtitle.length
      ? `<text x="80" y="${subtitleY}" font-family="${t.font}" font-size="30" fill="${ink}" fill-opacity="0.88">${tspans(subtitle, 80, 40)}</text>`
      : "",
    `</svg>`,
  ].join("");
}

/**
 * A 1200x300 banner for the offer: an accent-to-primary gradient, the title on the left and the
 * price in a pill on the right.
 */
export function createBannerSvg(input: { title: string; price_label: string; theme: GlobalTheme }): string {
  const t = safeTheme(input.theme);
  const ink = readableOn(t.rawPrimary);
  const title = wrapText(input.title, 26, 2);
  const price = wrapText(input.price_label ?? "", 18, 1)[0] ?? "";
  const pillWidth = Math.min(380, Math.max(160, Array.from(price).length * 24 + 64));
  const pillX = 1120 - pillWidth;
  const titleY = title.length === 1 ? 168 : 138;
  return [
    `<svg xmlns="${SVG_NS}" width="1200" height="300" viewBox="0 0 1200 300" role="img" aria-label="${escapeXml(`${input.title} ${price}`.trim())}">`,
    `<defs><linearGradient id="banner-bg" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="${t.primary}"/><stop offset="1" stop-color="${t.accent}"/></linearGradient></defs>`,
    `<rect width="1200" height="300" fill="url(#banner-bg)"/>`,
    `<circle cx="60" cy="300" r="140" fill="${t.secondary}" fill-opacity="0.35"/>`,
    `<text x="80" y="${titleY}" font-family="${t.font}" font-size="48" font-weight="700" fill="${ink}">${tspans(title, 80, 60)}</text>`,
    price
      ? `<rect x="${pillX}" y="110" width="${pillWidth}" height="80" rx="40" fill="${t.background}"/>` +
        `<text x="${pillX + pillWidth / 2}" y="164" text-anchor="middle" font-family="${t.font}" font-size="40" font-weight="700" fill="${t.text}">${escapeXml(price)}</text>`
      : "",
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
