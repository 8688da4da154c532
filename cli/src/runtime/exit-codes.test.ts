import { describe, expect, it } from "vitest";
import { ApiError, ClientConfigError, TransportError, WaitTimeoutError } from "@lp/client";
import { CliError, UsageError } from "./errors.js";
import { describeError, EXIT, toExitCode } from "./exit-codes.js";

const api = (status: number, code: string) => new ApiError(status, { code, message: code, request_id: "req_1" }, null);

describe("exit codes", () => {
  it.each([
    [api(401, "unauthenticated"), EXIT.auth],
    [api(403, "insufficient_scope"), EXIT.auth],
    [api(403, "account_mismatch"), EXIT.auth],
    [api(403, "quota_exceeded"), EXIT.error],
    [api(404, "not_found"), EXIT.error],
    [api(409, "deployment_in_progress"), EXIT.error],
    [new UsageError("bad"), EXIT.usage],
    [new ClientConfigError("token", "x"), EXIT.auth],
    [new ClientConfigError("accountId", "x"), EXIT.usage],
    [new WaitTimeoutError("Job", 1000, {}), EXIT.pending],
    [new CliError(EXIT.pending, "still"), EXIT.pending],
    [new TransportError("http://x", new Error("refused")), EXIT.error],
    [Object.assign(new Error("unknown option"), { code: "commander.unknownOption", exitCode: 1 }), EXIT.usage],
    [Object.assign(new Error("(outputHelp)"), { code: "commander.helpDisplayed", exitCode: 0 }), EXIT.ok],
    [new Error("boom"), EXIT.error],
  ])("%s → %i", (error, code) => {
    expect(toExitCode(error)).toBe(code);
  });

  it("describes an API error on one line with its code and request id", () => {
    expect(describeError(api(404, "not_found"))).toBe("not_found (code: not_found, request: req_1)");
    expect(describeError(new ClientConfigError("token", "x"))).toMatch(/^No access token: pass --token/);
    expect(describeError(new Error("plain"))).toBe("plain");
  });
});
