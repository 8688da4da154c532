import { cssNamedColors } from "./css-named-colors.js";

const hex = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const functional = /^(rgba?|hsla?)\(([^()]*)\)$/i;
const number = "[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?";
const isNumber = (s: string) => new RegExp(`^${number}$`, "i").test(s);
const isPercent = (s: string) => new RegExp(`^${number}%$`, "i").test(s);
const isAngle = (s: string) => new RegExp(`^${number}(?:deg|rad|grad|turn)?$`, "i").test(s);

/**
 * True for colours the theme accepts: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`
 * and `hsl()`/`hsla()` in comma or space syntax, and CSS named colours. The check is strict
 * because these strings end up inside CSS and SVG: anything that is not plainly a colour is refused.
 */
export function isColor(value: unknown): value is string {
  if (typeof value !== "string" || value.length > 64) return false;
  const text = value.trim().toLowerCase();
  if (hex.test(text) || cssNamedColors.has(text)) return true;
  const match = functional.exec(text);
  if (!match) return false;
  const args = splitArguments(match[2]!);
  if (!args) return false;
  const [c1, c2, c3] = args.channels;
  const rgb = match[1]!.startsWith("rgb");
  const channelsOk = rgb
    ? args.channels.every(isNumber) || args.channels.every(isPercent)
    : isAngle(c1!) && isPercentOrNumber(c2!) && isPercentOrNumber(c3!);
  return channelsOk && (args.alpha === null || isNumber(args.alpha) || isPercent(args.alpha));
}

function isPercentOrNumber(s: string): boolean {
  return isPercent(s) || isNumber(s);
}

/** `1, 2, 3, 0.5` and `1 2 3 / 0.5` both give three channels and an alpha. */
function splitArguments(inner: string): { channels: string[]; alpha: string | null } | null {
  const body = inner.trim();
  let parts: string[];
  let alpha: string | null = null;
  if (body.includes(",")) {
    parts = body.split(",").map((part) => part.trim());
    if (parts.length === 4) alpha = parts.pop()!;
  } else {
    const [channels, slashAlpha, extra] = body.split("/").map((part) => part.trim());
    if (extra !== undefined) return null;
    parts = (channels ?? "").split(/\s+/);
    alpha = slashAlpha ?? null;
  }
  return parts.length === 3 && parts.every(Boolean) ? { channels: parts, alpha } : null;
}

/** Dark or light text, whichever reads better on a `#rrggbb`/`#rgb` background; light otherwise. */
export function readableOn(background: string): string {
  const match = /^#(?:([0-9a-f]{3})[0-9a-f]?|([0-9a-f]{6})(?:[0-9a-f]{2})?)$/i.exec(background.trim());
  if (!match) return "#ffffff";
  const digits = match[1] ? [...match[1]].map((d) => d + d).join("") : match[2]!;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const channel = parseInt(digits.slice(i, i + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  // Above this luminance dark text has the higher WCAG contrast ratio; below it white does.
  return luminance > 0.179 ? "#111111" : "#ffffff";
}
