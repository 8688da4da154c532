import { z } from "zod";
import { resolveLocale } from "./locales/resolve-locale.js";

/** Input types a checkout field can have; each maps to one HTML control. */
export const checkoutFieldTypes = ["text", "tel", "email", "date", "textarea", "select"] as const;

/** The type of a checkout field. */
export type CheckoutFieldType = (typeof checkoutFieldTypes)[number];

/** A checkout form field as stored on a page (defaults applied). */
export interface CheckoutField {
  field_key: string;
  label: string;
  field_type: CheckoutFieldType;
  is_required: boolean;
  options: string[];
}

/** `first_name` → `First name`: a readable label when the client gave none. */
export function toFieldLabel(fieldKey: string): string {
  const words = fieldKey.replace(/_+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Validates one checkout field as given on page creation and fills the defaults (label from the
 * key, `text`, required). Options belong to `select` only: a list on another type would be
 * silently ignored by browsers, so it is rejected instead of accepted and lost.
 */
export const checkoutFieldSchema = z
  .object({
    field_key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "must start with a-z and contain only a-z, 0-9 and _ (at most 64)"),
    label: z.string().trim().min(1).max(200).meta({ pattern: "\\S" }).nullish(),
    field_type: z.enum(checkoutFieldTypes).default("text"),
    is_required: z.boolean().default(true),
    options: z.array(z.string().trim().min(1).max(200).meta({ pattern: "\\S" })).max(100).nullish(),
  })
  .superRefine((field, ctx) => {
    const options = field.options ?? [];
    if (field.field_type === "select") {
      if (options.length === 0) ctx.addIssue({ code: "custom", path: ["options"], message: "a select field needs at least one option" });
      if (new Set(options).size !== options.length) ctx.addIssue({ code: "custom", path: ["options"], message: "options must be unique" });
    } else if (options.length > 0) {
      ctx.addIssue({ code: "custom", path: ["options"], message: `options are only allowed on select fields, not ${field.field_type}` });
    }
  })
  // The check above, as the document says it: options only on select fields, and there at least one, unique.
  .meta({
    if: { properties: { field_type: { const: "select" } }, required: ["field_type"] },
    then: { required: ["options"], properties: { options: { type: "array", minItems: 1, uniqueItems: true } } },
    else: { properties: { options: { anyOf: [{ type: "null" }, { type: "array", maxItems: 0 }] } } },
  })
  .transform(
    (field): CheckoutField => ({
      field_key: field.field_key,
      label: field.label ?? toFieldLabel(field.field_key),
      field_type: field.field_type,
      is_required: field.is_required,
      options: field.field_type === "select" ? (field.options ?? []) : [],
    }),
  );

/** A page's list of checkout fields: at most 30, keys unique (they become form names). */
export const checkoutFieldsSchema = z
  .array(checkoutFieldSchema)
  .max(30)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((field, index) => {
      if (seen.has(field.field_key)) {
        ctx.addIssue({ code: "custom", path: [index, "field_key"], message: `duplicate field_key "${field.field_key}"` });
      }
      seen.add(field.field_key);
    });
  });

/**
 * The fields generated when neither the request nor the product provides any: what is needed to
 * ship a parcel, or to book an appointment. Labels are in the page language (English fallback).
 */
export function defaultCheckoutFields(productType: "physical" | "service", language: string): CheckoutField[] {
  const labels = resolveLocale(language).locale.fieldLabels;
  const field = (field_key: keyof typeof labels, field_type: CheckoutFieldType, is_required = true): CheckoutField => ({
    field_key,
    label: labels[field_key],
    field_type,
    is_required,
    options: [],
  });
  return productType === "service"
    ? [field("name", "text"), field("email", "email"), field("date", "date"), field("notes", "textarea", false)]
    : [field("name", "text"), field("phone", "tel"), field("address", "textarea"), field("city", "text")];
}
