import type { z } from "zod";
import { validationError, type ValidationIssue } from "./errors.js";

/** zod issues as the `details.issues` of a `validation_error`. */
export function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    code: issue.code,
    message: issue.message,
  }));
}

/** Parses `value` with `schema`, or throws a `validation_error` naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(toIssues(result.error));
}
