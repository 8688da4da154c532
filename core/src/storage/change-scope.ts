import { AsyncLocalStorage } from "node:async_hooks";
import type { BatchOp } from "./create-storage.js";

interface Scope {
  op: BatchOp;
  /** Taken by a write under way, or closed by its owner: no other write takes it meanwhile. */
  spent: boolean;
  /** A write that carried it was committed. */
  committed: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * A write that rides along with the first change made in an async context: the first data write of the
 * work run through {@link ChangeScope.run} carries `op` in its own batch (one transaction on SQLite), so a
 * crash keeps both or neither. An idempotent request uses it to commit "this key's change is made" with the
 * change itself (`idempotency.ts`).
 */
export interface ChangeScope {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Ends the scope (no later write takes the op) and says whether a write took it. */
  close(): boolean;
}

/** A {@link ChangeScope} for `op`; with no op, one that adds nothing. */
export function openChangeScope(op: BatchOp | undefined): ChangeScope {
  if (!op) return { run: (work) => work(), close: () => false };
  const scope: Scope = { op, spent: false, committed: false };
  return {
    run: (work) => scopes.run(scope, work),
    close() {
      scope.spent = true;
      return scope.committed;
    },
  };
}

/**
 * Writes `ops` with the op of the change scope it is made in, if that op has not ridden with a committed
 * write yet (outside a scope, `ops` alone): `write` gets the ops to commit. A write that fails gives the op
 * back, for the next write of the scope.
 */
export function withScopedOp<T>(ops: readonly BatchOp[], write: (ops: readonly BatchOp[]) => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  if (!scope || scope.spent) return write(ops);
  scope.spent = true;
  return write([...ops, scope.op]).then(
    (result) => {
      scope.committed = true;
      return result;
    },
    (error: unknown) => {
      if (!scope.committed) scope.spent = false;
      throw error;
    },
  );
}

/** Whether a write made now would carry a scope's op (so a single write should go as a batch). */
export function hasScopedOp(): boolean {
  const scope = scopes.getStore();
  return scope !== undefined && !scope.spent;
}
