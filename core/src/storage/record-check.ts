import { z } from "zod";
import { LpError } from "../errors.js";

const text = z.string();
const time = z.string().min(1);
const nullableText = z.string().nullable();

// The fields every reader of a kind relies on: enough to refuse a record of another shape (a hand edit,
// another version, a file cut short into valid JSON) without restating every type of the domain. Extra
// fields pass: a newer optional field is not damage.
const product = z.looseObject({
  id: text,
  account_id: text,
  title: text,
  product_type: text,
  images: z.array(z.looseObject({ id: text, url: text, display_order: z.number(), media_path: nullableText })),
  created_at: time,
  updated_at: time,
  deleted_at: nullableText,
});
const page = z.looseObject({ id: text, account_id: text, slug: text, status: text, job_id: text, content: z.looseObject({}), created_at: time, updated_at: time });
const job = z.looseObject({ job_id: text, account_id: text, status: text, created_at: time, updated_at: time });
const deployment = z.looseObject({ id: text, page_id: text, status: text, created_at: time });
const account = z.looseObject({ account_id: text, environment: text, page_quota: z.number(), created_at: time });
const token = z.looseObject({ account_id: text, scopes: z.array(text), expires_at: nullableText, created_at: time });
const app = z.looseObject({ application_id: text, account_ids: z.array(text), secret_hash: text, created_at: time });
const endpoint = z.looseObject({ id: text, application_id: text, url: text, events: z.array(text), status: text, secret: text, created_at: time });
const delivery = z.looseObject({ id: text, endpoint_id: text, event_id: text, status: text, attempts: z.array(z.unknown()), created_at: time });
const anyObject = z.looseObject({});

/** Which schema a key's record must pass, by the key's shape (first match wins). */
const KINDS: Array<[pattern: RegExp, kind: string, schema: z.ZodType]> = [
  [/^acct:[^:]+:products:[^:]+$/, "product", product],
  [/^acct:[^:]+:pages:[^:]+$/, "page", page],
  [/^acct:[^:]+:jobs:[^:]+$/, "job", job],
  [/^acct:[^:]+:deployments:[^:]+:[^:]+$/, "deployment", deployment],
  [/^accounts:[^:]+$/, "account", account],
  [/^tokens:[^:]+$/, "token", token],
  [/^apps:[^:]+$/, "application", app],
  [/^webhooks:endpoints:[^:]+:[^:]+$/, "webhook endpoint", endpoint],
  [/^webhooks:deliveries:[^:]+:[^:]+$/, "delivery", delivery],
];

/** The kind of record a key holds (`product`, `page`...), or `record` for the others. */
export function kindOfKey(key: string): string {
  return KINDS.find(([pattern]) => pattern.test(key))?.[1] ?? "record";
}

/**
 * Why the record read at `key` is unusable, or null when it passes: every record is a JSON object (a torn or
 * empty file is not), and the kinds readers rely on carry their fields with their types.
 */
export function recordProblem(key: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) {
    return typeof value === "string" ? (value.trim() === "" ? "empty" : "not valid JSON (cut short or edited)") : `a ${Array.isArray(value) ? "list" : typeof value}, not a record`;
  }
  const schema = KINDS.find(([pattern]) => pattern.test(key))?.[2] ?? anyObject;
  const result = schema.safeParse(value);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return `not a valid ${kindOfKey(key)}: ${issue.path.join(".") || "(root)"} ${issue.message}`;
}

/**
 * A record that cannot be read as what it should be (torn, empty, another shape). A GET of it answers 500
 * `record_unreadable` naming the id; lists skip it; `lp doctor` finds it and `--fix` quarantines it.
 */
export class RecordUnreadableError extends LpError {
  readonly key: string;

  constructor(key: string, problem: string) {
    const id = key.slice(key.lastIndexOf(":") + 1);
    const kind = kindOfKey(key);
    super("record_unreadable", `The stored ${kind} '${id}' cannot be read (${problem}). Run \`lp doctor\` on the data store.`, { resource: kind, id });
    this.name = "RecordUnreadableError";
    this.key = key;
  }
}

/** `promise`'s value, or null when the record it reads is unreadable: for lists, which skip such records. */
export async function skipUnreadable<T>(promise: Promise<T | null>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof RecordUnreadableError) return null;
    throw error;
  }
}
