/** A mistake in how the command was called: unknown flag, missing or malformed value. Exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A failure the command detected itself, with the exit code it calls for. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly code?: string;
  readonly requestId?: string;

  constructor(exitCode: number, message: string, options: { code?: string; requestId?: string } = {}) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.code = options.code;
    this.requestId = options.requestId;
  }
}
