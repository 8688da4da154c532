/**
 * What the checks hold an instance to: `@lp/contract` itself, the module whose zod schemas the server's
 * OpenAPI document and its tests use, with the error-status table and the event catalogue. Nothing here
 * restates a schema: a check names a member of this object, so a changed contract changes the checks.
 */
export type Contract = typeof import("@lp/contract");

/** Loads `@lp/contract` (bundled into the CLI, with zod) when the command runs. */
export async function loadContract(): Promise<Contract> {
  return import("@lp/contract");
}
