import { readableOn } from "./color.js";
import { sanitizeCssValue } from "./escape.js";
import type { GlobalTheme } from "./theme.js";

/**
 * The whole stylesheet, inline: a deployed page makes no request but its images. Mobile first,
 * one breakpoint for wider screens; theme values enter only as custom properties on `:root`.
 */
export function renderStyles(theme: GlobalTheme): string {
  const v = sanitizeCssValue;
  return `:root{--color-primary:${v(theme.primaryColor)};--color-secondary:${v(theme.secondaryColor)};--color-accent:${v(theme.accentColor)};--color-background:${v(theme.backgroundColor)};--color-text:${v(theme.textColor)};--color-on-primary:${readableOn(theme.primaryColor)};--color-on-accent:${readableOn(theme.accentColor)};--font-family:${v(theme.fontFamily)}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:var(--font-family);color:var(--color-text);background:var(--color-background);line-height:1.6}
img{display:block;max-width:100%;height:auto}
h1,h2,h3{line-height:1.2;margin:0 0 .6em}
h1{font-size:2rem}
h2{font-size:1.6rem}
h3{font-size:1.1rem}
p{margin:0 0 1em}
.container{width:100%;max-width:1120px;margin:0 auto;padding:0 20px}
.section{padding:48px 0}
.section:nth-of-type(even){background:rgba(127,127,127,.06)}
.preview-banner{position:sticky;top:0;z-index:10;margin:0;padding:6px 12px;background:#111827;color:#fff;font-size:.875rem;text-align:center}
.hero{padding:40px 0 56px;background:linear-gradient(135deg,var(--color-primary),var(--color-secondary));color:var(--color-on-primary)}
.hero-grid{display:grid;gap:28px}
.hero-media img{width:100%;border-radius:16px;box-shadow:0 12px 40px rgba(0,0,0,.25);object-fit:cover}
.subheadline{font-size:1.1rem;opacity:.92}
.price{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px 14px;margin:0 0 8px}
.price-current{font-size:2rem;font-weight:800}
.price-original{opacity:.7}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;background:var(--color-accent);color:var(--color-on-accent);font-size:.875rem;font-weight:700}
.delivery{margin:0 0 20px;font-size:.95rem;opacity:.85}
.button{display:inline-block;padding:14px 28px;border:0;border-radius:999px;background:var(--color-accent);color:var(--color-on-accent);font:inherit;font-weight:700;text-decoration:none;cursor:pointer}
.button:disabled{cursor:not-allowed}
.grid{display:grid;gap:16px}
.card{padding:20px;border:1px solid rgba(127,127,127,.25);border-radius:12px;background:var(--color-background)}
.card p{margin:0}
.gallery-grid{display:grid;grid-template-columns:repeat(2,1fr);gap:12px}
.gallery-grid img{width:100%;aspect-ratio:1;object-fit:cover;border-radius:12px}
blockquote{margin:0}
figure{margin:0}
figcaption{margin-top:12px;font-size:.9rem;opacity:.8}
details{padding:14px 0;border-bottom:1px solid rgba(127,127,127,.3)}
summary{font-weight:600;cursor:pointer}
details p{margin:10px 0 0}
.details-text{max-width:720px;font-size:1.05rem;white-space:pre-line}
.order-summary{margin:8px 0 20px;padding-top:16px;border-top:1px solid rgba(127,127,127,.3)}
.site-footer{padding:32px 0 40px;border-top:1px solid rgba(127,127,127,.25);font-size:.9rem}
.site-footer p{margin:0;max-width:720px}
.checkout-box{max-width:560px;margin:0 auto}
fieldset{margin:0;padding:0;border:0;min-width:0}
fieldset:disabled{opacity:.6}
.field{display:flex;flex-direction:column;gap:6px;margin-bottom:16px}
label{font-weight:600}
input,select,textarea{width:100%;padding:12px;border:1px solid rgba(127,127,127,.5);border-radius:8px;background:#fff;color:#111827;font:inherit}
textarea{min-height:96px;resize:vertical}
.required-mark{color:#b91c1c;margin-left:2px}
.hint{font-size:.875rem;opacity:.8}
.preview-note{padding:12px 14px;border-radius:8px;background:#fef3c7;color:#78350f}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.details-list{display:grid;grid-template-columns:auto 1fr;gap:6px 16px}
.details-list dt{font-weight:600}
.details-list dd{margin:0;white-space:pre-wrap}
@media (min-width:768px){
h1{font-size:3rem}
h2{font-size:2rem}
.section{padding:72px 0}
.hero{padding:72px 0 88px}
.hero-grid{grid-template-columns:1.1fr 1fr;align-items:center;gap:48px}
.grid{grid-template-columns:repeat(3,1fr);gap:24px}
.gallery-grid{grid-template-columns:repeat(3,1fr)}
}`;
}
