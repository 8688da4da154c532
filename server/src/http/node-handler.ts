import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { internalErrorLog } from "./internal-error-log.js";

/** A Node request listener, as `toNodeHandler(app)` returns it. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Wraps a Node request listener so that nothing thrown or rejected while handling a request leaves it:
 * a synchronous throw or a rejected promise becomes that request's 500 (the error envelope, with a request
 * id that the log line quotes), and never an uncaught exception that would end the process.
 * The app's own error path already turns route errors into envelopes; this is for what escapes it.
 */
export function toSafeNodeHandler(handler: NodeHandler, report: (line: string, error: unknown) => void = defaultReport): NodeHandler {
  return (req, res) => {
    const fail = (error: unknown) => answerInternalError(req, res, error, report);
    try {
      const result = handler(req, res);
      if (result && typeof (result as Promise<unknown>).then === "function") (result as Promise<unknown>).then(undefined, fail);
    } catch (error) {
      fail(error);
    }
  };
}

function defaultReport(line: string, error: unknown): void {
  internalErrorLog.report(line, error);
}

function answerInternalError(req: IncomingMessage, res: ServerResponse, error: unknown, report: (line: string, error: unknown) => void): void {
  const requestId = `req_${randomBytes(12).toString("hex")}`;
  try {
    report(`[lp] ${requestId} ${req.method} ${req.url}: error outside the request's error path:`, error);
    if (res.writableEnded || res.destroyed) return;
    // Half an answer cannot be mended: end the connection, which the client sees as a failed request.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify({
      error: { code: "internal_error", message: "Something went wrong on our side. Quote the request id when reporting it.", request_id: requestId },
    });
    res.writeHead(500, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      "x-request-id": requestId,
      connection: "close",
    });
    res.end(body);
  } catch (secondary) {
    // Answering failed too (the socket is gone): the request is over either way, the process is not.
    report(`[lp] ${requestId} could not send the 500:`, secondary);
  }
}
