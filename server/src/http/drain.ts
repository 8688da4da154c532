import { LpError } from "@lp/core";

/** Most bytes read and thrown away after a body was refused. */
export const DRAIN_BYTES = 16 * 1024 * 1024;
/** Longest wait for the next chunk while draining, and longest drain in all. */
const DRAIN_IDLE_MS = 500;
const DRAIN_TOTAL_MS = 3_000;

/**
 * Reads and discards what is left of a refused body (up to {@link DRAIN_BYTES}, while it keeps coming),
 * then lets go of the reader without cancelling it. The refusal closes the connection afterwards
 * (`Connection: close`); closing with unread bytes makes the kernel reset the connection, and a client
 * may then lose the 413 it was sent. Draining first lets an ordinary client read why it was refused; a
 * client that sends more than the drain takes is cut off all the same.
 */
export async function drainRefused(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const deadline = Date.now() + DRAIN_TOTAL_MS;
  let drained = 0;
  try {
    while (drained <= DRAIN_BYTES && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DRAIN_IDLE_MS)));
      const next = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (next === null || next.done) break;
      drained += next.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to drain.
  }
  // A read may still be pending after an idle timeout; releasing the lock settles it without a cancel.
  try {
    reader.releaseLock();
  } catch {
    // Released already.
  }
}

/**
 * One read of a request body. A read fails when the client breaks off mid-body or breaks the framing
 * (a bad chunk): that is the client's doing, a 400, not an error of ours to log as a 500.
 */
export async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch {
    throw new LpError("validation_error", "The request body could not be read: the connection ended or broke before the body was complete.", {
      issues: [{ path: "body", code: "incomplete_body", message: "the body ended before its declared end" }],
    });
  }
}
