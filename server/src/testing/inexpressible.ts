/**
 * The refusals the OpenAPI document cannot state, each with its reason: the one place a 400 to a request
 * the document admits is allowed (`fuzz-document.property.test.ts`). Everything else the server refuses
 * must be in the document. Keep the list short; prefer making the document say the rule.
 */
export interface Inexpressible {
  /** The error code of the refusal. */
  code: string;
  /** The issue path it is allowed at (`details.issues[].path`); absent for errors without issues. */
  path?: RegExp;
  /** Operations it applies to (`METHOD /path` of the document); absent for all. */
  operations?: string[];
  reason: string;
}

const productWrites = ["PATCH /v1/accounts/{account_id}/products/{id}"];

/**
 * The list. Two suspects are not on it because the server agrees with the document, and the generator
 * sends both (`fuzz-schema-arb.ts`): lengths are code points on both sides (JSON Schema's `maxLength`, and
 * zod's `min`/`max` on strings, which count code points, not UTF-16 units: a title of 200 letters outside
 * the BMP is accepted, `products-validation.test.ts`); and `\p{L}` patterns (the font stack) are read with
 * the `u` flag on both sides (ajv and the server's `RegExp(..., "u")`). A length check written by hand with
 * `.length` would count UTF-16 units and belong here; prefer zod's bounds.
 */
export const INEXPRESSIBLE: Inexpressible[] = [
  {
    code: "invalid_cursor",
    reason: "A cursor is opaque and signed, bound to the filters and sort it was issued with: only the server's own are valid.",
  },
  {
    code: "validation_error",
    path: /^(remove_image_ids|reorder_images)(\.\d+(\.id)?)?$/,
    operations: productWrites,
    reason: "Image ids must name images of this product, which live in storage, not in the document.",
  },
  {
    code: "validation_error",
    path: /^images$/,
    operations: productWrites,
    reason: "At most 20 images per product counts the images the product already has, which live in storage.",
  },
  {
    code: "validation_error",
    path: /^checkout_fields\.\d+\.field_key$/,
    operations: ["POST /v1/accounts/{account_id}/pages"],
    reason: "field_key must be unique across the list: JSON Schema's uniqueItems compares whole items, not one key of them.",
  },
  {
    code: "validation_error",
    path: /^checkout_fields\.\d+\.options$/,
    operations: ["POST /v1/accounts/{account_id}/pages"],
    reason: "Select options are unique after trimming (` a` and `a` are one option); uniqueItems compares them as sent.",
  },
];

/** One issue of a 400 body. */
export interface Issue {
  path: string;
  code?: string;
  message?: string;
}

/** The entry excusing a refusal of `operation` with `code` (and `issue`), if any. */
export function findInexpressible(operation: string, code: string, issue?: Issue): Inexpressible | undefined {
  return INEXPRESSIBLE.find(
    (entry) =>
      entry.code === code &&
      (!entry.operations || entry.operations.includes(operation)) &&
      (entry.path === undefined ? issue === undefined : issue !== undefined && entry.path.test(issue.path)),
  );
}
