import { expect } from "vitest";

/** A response as `TestApp.call` returns it. */
export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * Asserts that `res` is an error in the exact envelope `{ error: { code, message, details?, request_id } }`,
 * with `request_id` equal to the `X-Request-Id` header, and returns its `error` member.
 */
export function expectError(res: CallResult, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(res.json ?? {})).toEqual(["error"]);
  const error = res.json.error;
  const keys = Object.keys(error).sort();
  expect(keys, res.text).toEqual(error.details === undefined ? ["code", "message", "request_id"] : ["code", "details", "message", "request_id"]);
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.request_id).toMatch(/^req_[0-9a-f]+$/);
  expect(error.request_id).toBe(res.headers.get("x-request-id"));
  return error as { code: string; message: string; details?: any; request_id: string };
}
