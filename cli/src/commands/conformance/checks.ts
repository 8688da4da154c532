import type { z } from "zod";
import type { Contract } from "./contract.js";
import { schemaProblems, show } from "./schema-issues.js";
import type { Area, CheckResult } from "./types.js";

/** One answer of the instance: status, headers and the parsed body (JSON, text, or undefined). */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: unknown;
}

/** A request got no answer (refused, reset, timed out): the run cannot go on, and says where it stopped. */
export class NoAnswer extends Error {
  constructor(readonly step: string, message: string) {
    super(message);
    this.name = "NoAnswer";
  }
}

/** Ctrl-C (or SIGTERM): the run stops where it is and cleans up. */
export class Interrupted extends Error {
  constructor() {
    super("interrupted");
    this.name = "Interrupted";
  }
}

/** A check whose prerequisite failed: reported as skipped, with what it needed. */
export class Blocked extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "Blocked";
  }
}

/** Throws {@link Blocked} when an earlier step did not give the value a check needs. */
export function need<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Blocked(`needs ${what}, which did not succeed`);
  return value;
}

/** What a check records while it runs; every method adds problems, none throws. */
export interface Check {
  readonly id: string;
  /** Called by the HTTP layer: the check's request, for the report. */
  sent(request: string): void;
  /** The answer's status against the contract's; the first call sets the check's `got`. */
  status(ex: Exchange, expected: number, what?: string): boolean;
  /** A value against one of the contract's schemas; `keep` filters issues by path. */
  schema(value: unknown, schema: z.ZodType, options?: { prefix?: PropertyKey[]; keep?: (path: ReadonlyArray<PropertyKey>) => boolean }): boolean;
  /** An error answer: the status the error table gives `code`, the envelope, the code, the request id. */
  envelope(ex: Exchange, code: Contract["ERROR_CODES"][number]): Record<string, unknown> | undefined;
  /** A rule of the contract that no schema states; `problem` is reported when `ok` is false. */
  rule(ok: boolean, problem: string): boolean;
  /** Each of `keys` of `actual` equals the value sent. */
  same(actual: Record<string, unknown>, sent: Record<string, unknown>, keys: string[], prefix?: string): void;
  problem(text: string): void;
  note(text: string): void;
  skip(reason: string): void;
}

/** Runs checks one at a time and keeps their results in order. */
export function createRecorder(contract: Contract) {
  const results: CheckResult[] = [];

  async function check<T>(area: Area, id: string, expected: string, run: (c: Check) => Promise<T>): Promise<T | undefined> {
    const result: CheckResult = { id, area, verdict: "pass", expected, got: "-", problems: [] };
    results.push(result);
    let statusSeen = false;
    let skipped: string | undefined;
    const c: Check = {
      id,
      sent(request) {
        result.request ??= request;
      },
      status(ex, want, what) {
        if (!statusSeen) {
          statusSeen = true;
          result.got = String(ex.status);
        }
        if (ex.status === want) return true;
        c.problem(`${what ? `${what}: ` : ""}status ${ex.status}, expected ${want}`);
        return false;
      },
      schema(value, schema, options) {
        const problems = schemaProblems(value, schema, options);
        problems.forEach((p) => c.problem(p));
        return problems.length === 0;
      },
      envelope(ex, code) {
        c.status(ex, contract.ERROR_STATUS[code]);
        const error = (ex.body as { error?: unknown } | null | undefined)?.error;
        if (typeof error !== "object" || error === null || typeof (error as { code?: unknown }).code !== "string" || typeof (error as { message?: unknown }).message !== "string") {
          c.problem("body has no error envelope (error.code, error.message)");
          return undefined;
        }
        c.schema(ex.body, contract.errorResponse);
        const e = error as Record<string, unknown>;
        c.rule(e.code === code, `error.code: expected "${code}", got ${show(e.code)}`);
        const header = ex.headers.get("x-request-id");
        if (header && typeof e.request_id === "string") c.rule(e.request_id === header, "error.request_id: differs from the X-Request-Id header");
        return e;
      },
      rule(ok, problem) {
        if (!ok) c.problem(problem);
        return ok;
      },
      same(actual, sent, keys, prefix = "data") {
        for (const key of keys) {
          if (!(key in sent)) continue;
          if (actual[key] !== sent[key]) c.problem(`${prefix}.${key}: expected ${show(sent[key])} as sent, got ${show(actual[key])}`);
        }
      },
      problem(text) {
        if (!result.problems.includes(text)) result.problems.push(text);
      },
      note(text) {
        result.note = result.note ? `${result.note}; ${text}` : text;
      },
      skip(reason) {
        skipped = reason;
      },
    };
    try {
      const value = await run(c);
      if (skipped !== undefined && result.problems.length === 0) {
        result.verdict = "skip";
        result.note = skipped;
      }
      return value;
    } catch (error) {
      if (error instanceof Blocked) {
        result.verdict = "skip";
        result.note = error.reason;
        return undefined;
      }
      if (error instanceof NoAnswer) {
        result.got = "no answer";
        c.problem(error.message);
        throw error;
      }
      if (error instanceof Interrupted) {
        result.verdict = "skip";
        result.note = "interrupted";
        throw error;
      }
      // A body so far from the contract that reading it threw: that is the finding.
      c.problem(`could not read the answer: ${(error as Error)?.message ?? String(error)}`);
      return undefined;
    } finally {
      if (result.problems.length) result.verdict = "fail";
    }
  }

  /** A check that was never run (its area was left out), reported as skipped. */
  function skipped(area: Area, id: string, expected: string, reason: string): void {
    results.push({ id, area, verdict: "skip", expected, got: "-", problems: [], note: reason });
  }

  return { check, skipped, results };
}

/** What {@link createRecorder} returns. */
export type Recorder = ReturnType<typeof createRecorder>;
