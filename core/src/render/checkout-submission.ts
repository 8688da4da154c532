import type { CheckoutField } from "../generation/checkout-fields.js";
import { maxFieldLength } from "./checkout-form.js";

/** A problem with one submitted field. */
export interface CheckoutFieldError {
  field_key: string;
  message: string;
}

/** The outcome of checking a checkout form post. */
export type CheckoutValidation = { ok: true; values: Record<string, string> } | { ok: false; errors: CheckoutFieldError[] };

// Domain labels hold no dot, so each dot starts the next label: one way to match, linear time.
const emailPattern = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const telPattern = /^\+?[0-9 ().\-/]+$/;

/**
 * Checks a checkout form post against the page's fields, the same rules the browser applies (the
 * browser's checks are advisory: anyone can post anything). Values are trimmed; empty optional
 * fields are left out; keys that are not fields are ignored so stray inputs cannot be stored.
 */
export function validateCheckoutSubmission(fields: CheckoutField[], form: Record<string, string>): CheckoutValidation {
  const values: Record<string, string> = {};
  const errors: CheckoutFieldError[] = [];
  for (const field of fields) {
    const raw = Object.hasOwn(form, field.field_key) ? form[field.field_key] : undefined;
    const value = typeof raw === "string" ? raw.replace(/\r\n?/g, "\n").trim() : "";
    const problem = check(field, value);
    if (problem) errors.push({ field_key: field.field_key, message: `${field.label}: ${problem}` });
    else if (value !== "") values[field.field_key] = value;
  }
  return errors.length ? { ok: false, errors } : { ok: true, values };
}

function check(field: CheckoutField, value: string): string | null {
  if (value === "") return field.is_required ? "this field is required" : null;
  if (value.length > maxFieldLength) return `must be at most ${maxFieldLength} characters`;
  switch (field.field_type) {
    case "email":
      return emailPattern.test(value) && value.length <= 254 ? null : "must be a valid email address";
    case "tel": {
      const digits = value.replace(/\D/g, "").length;
      return telPattern.test(value) && digits >= 6 && digits <= 15 ? null : "must be a valid phone number";
    }
    case "date":
      return isCalendarDate(value) ? null : "must be a date in the form YYYY-MM-DD";
    case "select":
      return field.options.includes(value) ? null : `must be one of: ${field.options.join(", ")}`;
    case "text":
      // A single-line input never sends line breaks; a post that has them was not made by the form.
      return /[\n\u0000]/.test(value) ? "must be a single line" : null;
    default:
      return value.includes("\u0000") ? "contains invalid characters" : null;
  }
}

/** `YYYY-MM-DD` naming a real day (rejects 2026-02-30). */
function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
