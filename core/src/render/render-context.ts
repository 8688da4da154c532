import { fillContent, fillCopy, toCopyValues } from "../generation/copy-tokens.js";
import { formatPrice } from "../generation/format-price.js";
import type { Locale } from "../generation/locales/locale.js";
import { resolveLocale } from "../generation/locales/resolve-locale.js";
import { toLangAttribute, toSafeUrl } from "./escape.js";
import type { RenderablePage, RenderOptions } from "./renderable-page.js";
import { toSinglePlaceContent } from "./single-place.js";
import { toGlobalTheme, type GlobalTheme } from "./theme.js";

/** What every part of the page needs, computed once per render. */
export interface RenderContext {
  /** The page as shown: copy that restates an amount left out, other tokens filled in the current currency and language. */
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
  // Amounts are formatted now, never read from stored copy: a currency change shows at once.
  const values = toCopyValues(page.product, theme.currency, lang);
  const seo = page.seo_config ?? {};
  const filled: RenderablePage = {
    ...page,
    // Each fact in one place: copy restating an amount goes before the amounts are filled in.
    content: page.content ? fillContent(toSinglePlaceContent(page.content, page.product.title), values) : page.content,
    seo_config: {
      ...seo,
      ...(typeof seo.title === "string" ? { title: fillCopy(seo.title, values) } : {}),
      ...(typeof seo.description === "string" ? { description: fillCopy(seo.description, values) } : {}),
    },
  };
  return {
    page: filled,
    options,
    locale: resolveLocale(lang).locale,
    lang,
    theme,
    kind: page.product.product_type === "service" ? "service" : "physical",
    money: (amount) => formatPrice(amount, theme.currency, lang),
    url: (value) => toSafeUrl(value, options.assetBase),
  };
}
