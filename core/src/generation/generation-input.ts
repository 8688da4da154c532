import type { PageContent } from "./content.js";

/** Product facts a generator writes copy from. */
export interface GenerationProduct {
  title: string;
  description: string | null;
  price: number;
  original_price: number | null;
  delivery_price: number | null;
  product_type: "physical" | "service";
  images: { url: string; media_type: string }[];
}

/** Everything a generator needs; nothing else (no clock, no ids) so output depends on this alone. */
export interface GenerationInput {
  product: GenerationProduct;
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** BCP 47 tag; the template generator supports en, fr, es, de. */
  language: string;
  /** Free text such as "luxury" or "for busy parents". */
  marketing_angle?: string;
}

/** A non-fatal remark about how content was produced, surfaced on the generation job. */
export interface Warning {
  code: string;
  message: string;
}

/** What every generator returns. */
export interface GenerationResult {
  content: PageContent;
  warnings: Warning[];
}

/** The generator port: `template` (offline) and `openai` implement it. */
export interface Generator {
  name: string;
  generate(input: GenerationInput): Promise<GenerationResult>;
}
