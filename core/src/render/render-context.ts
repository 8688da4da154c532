import { formatPrice } from "../generation/format-price.js";
import type { Locale } from "../generation/locales/locale.js";
import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { toLangAttribute, toSafeUrl } from "./escape.js";
import type { RenderablePage, RenderOptions } from "./renderable-page.js";
import { toGlobalTheme, type GlobalTheme } from "./theme.js";

/** What every part of the page needs, computed once per render. */
export interface RenderContext {
  page: RenderablePage;
  options: RenderOptions;
  /** Phrases for the renderer's own strings (English when the language is not supported). */
  locale: Locale;
  lang: string;
  /** The page theme with invalid or missing values replaced by defaults. */
  theme: GlobalTheme;
  kind: "physical" | "service";
  money(amount: number): string;
  /** A loadable URL or null (see `toSafeUrl`). */
  url(value: unknown): string | null;
}

/** Builds the render context of a page. */
export function createRenderContext(page: RenderablePage, options: RenderOptions): RenderContext {
  const lang = toLangAttribute(page.language ?? page.content?.language);
  const theme = toGlobalTheme(page.global_theme);
  return {
    page,
    options,
    locale: resolveLocale(lang).locale,
    lang,
    theme,
    kind: page.product.product_type === "service" ? "service" : "physical",
    money: (amount) => formatPrice(amount, theme.currency, lang),
    url: (value) => toSafeUrl(value, options.assetBase),
  };
}
