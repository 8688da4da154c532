import type { Tx } from "./database.js";

/**
 * What a request adds to the transaction of the change it makes: the mark of its Idempotency-Key
 * (`idempotency-repository.ts`, `markChanged`), written in the same transaction, so that a retry after a crash
 * knows whether the change was made. It throws when the key's claim was taken over, rolling the change back.
 * Every service method a route calls to change something takes one as its last argument and awaits it
 * inside its transaction.
 */
export type ChangeMark = (tx: Tx) => Promise<void>;
