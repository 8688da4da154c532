import type { CheckoutFieldInput } from "@lp/client";
import { UsageError } from "../../runtime/errors.js";

const TYPES = ["text", "tel", "email", "date", "textarea", "select"] as const;

/**
 * Parses `--checkout-field key[?][:type[:label[:options]]]`: a trailing `?` on the key makes the
 * field optional; `options` (select only) are separated by `|`.
 *
 * @example toCheckoutField("size:select:Size:S|M|L")
 */
export function toCheckoutField(spec: string): CheckoutFieldInput {
  const [rawKey, type, label, options] = spec.split(":");
  const optional = rawKey.endsWith("?");
  const key = optional ? rawKey.slice(0, -1) : rawKey;
  if (!key) throw new UsageError(`--checkout-field: '${spec}' has no key; use key:type[:label].`);
  if (type && !(TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`--checkout-field: type '${type}' must be one of ${TYPES.join(", ")}.`);
  }
  if (options && type !== "select") throw new UsageError(`--checkout-field: options are only for select fields ('${spec}').`);
  const field: CheckoutFieldInput = { field_key: key };
  if (type) field.field_type = type as (typeof TYPES)[number];
  if (label) field.label = label;
  if (optional) field.is_required = false;
  if (options) field.options = options.split("|").map((o) => o.trim()).filter(Boolean);
  return field;
}
