import { cssNamedColors } from "./css-named-colors.js";

/** `abc` → `[Aa][Bb][Cc]`: JSON Schema patterns have no flags, so case-insensitivity is spelt out. */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c)).join("");

// Digits, then an optional fraction: `\d+\.?\d*` would let the two digit runs split one run of digits in
// every possible way, which is quadratic on a long run that does not match.
const num = "[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?";
const pct = `${num}%`;
const numOrPct = `${num}%?`;
const angle = `${num}(?:${["deg", "rad", "grad", "turn"].map(anyCase).join("|")})?`;
const hex = "#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})";

/** `f(a, b, c[, alpha])` or `f(a b c[ / alpha])`, spaces allowed around every part. */
function functional(names: string, [a, b, c]: [string, string, string]): string {
  const commas = `\\s*${a}\\s*,\\s*${b}\\s*,\\s*${c}\\s*(?:,\\s*${numOrPct}\\s*)?`;
  const spaces = `\\s*${a}\\s+${b}\\s+${c}\\s*(?:/\\s*${numOrPct}\\s*)?`;
  return `${names}\\((?:${commas}|${spaces})\\)`;
}

const rgbName = `${anyCase("rgb")}(?:[Aa])?`;
const hslName = `${anyCase("hsl")}(?:[Aa])?`;
const forms = [
  hex,
  functional(rgbName, [num, num, num]),
  functional(rgbName, [pct, pct, pct]),
  functional(hslName, [angle, numOrPct, numOrPct]),
  [...cssNamedColors].map(anyCase).join("|"),
];

/**
 * The colours the theme accepts, as one ECMA-262 pattern: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`,
 * `rgb()`/`rgba()` (all numbers or all percentages) and `hsl()`/`hsla()` in comma or space syntax, and
 * CSS named colours, in any case, with surrounding white space. The OpenAPI document carries this very
 * pattern (with `maxLength: 64`), so what the document admits is what the server admits. The check is
 * strict because these strings end up inside CSS and SVG.
 */
export const COLOR_PATTERN = `^\\s*(?:${forms.join("|")})\\s*$`;
/** Longest colour string accepted. */
export const COLOR_MAX_LENGTH = 64;

const colorRegex = new RegExp(COLOR_PATTERN);

/** True for strings matching {@link COLOR_PATTERN} of at most {@link COLOR_MAX_LENGTH} characters. */
export function isColor(value: unknown): value is string {
  return typeof value === "string" && value.length <= COLOR_MAX_LENGTH && colorRegex.test(value);
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
