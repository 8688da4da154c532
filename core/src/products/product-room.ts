import { DEFAULT_MEDIA_QUOTA_BYTES, DEFAULT_PRODUCT_QUOTA, type AccountRecord } from "../accounts/schemas.js";
import type { Lock, LockLease } from "../ports/lock.js";
import { assertProductRoom, productRoomRefusal, type PendingWrite, type ProductUsage, type UsageReader } from "./product-quotas.js";

/** What a write asks of the account's quotas. */
export interface RoomClaim {
  /** The product the write stores (a create's id is chosen before it asks). */
  id: string;
  /** More products it adds (1 for a create, 0 for an edit). */
  products: number;
  /** More upload bytes it adds; 0 or less asks nothing of the media quota. */
  bytes: () => number;
}

interface Deps {
  lock: Lock;
  /** The account's quotas; null when the account is unknown (the defaults apply). */
  accounts: { get(accountId: string): Promise<Pick<AccountRecord, "product_quota" | "media_quota_bytes"> | null> };
  /**
   * A reader of the account's usage (the products index, loaded if need be, or SQLite's totals), called in
   * one synchronous step with the check; it tells which of the writes under way it shows.
   */
  usage: (accountId: string) => Promise<UsageReader>;
  /**
   * True when other processes write the same store (Redis): its index follows them through the change feed
   * and the lock is theirs too, but a reservation kept here would not be seen by them.
   */
  shared: boolean;
}

/** A share taken and not yet visible in the usage: counted while the product's state is still `before`. */
interface Reservation extends PendingWrite {
  products: number;
  bytes: number;
}

/**
 * Takes a share of an account's product and media quotas for one write. The check and the share it takes are
 * one step: two writes never both take the last product or the last bytes.
 *
 * With one process writing the store (memory, SQLite), the check counts the usage (the index on memory,
 * SQLite's totals) and the shares reserved by writes still under way, and records its own reservation, in
 * one synchronous step: no lock is needed for that in one process, and none is held across the write (its
 * durable commit included), so creates into one account reach the store's group commit together. A
 * reservation counts until the usage shows the write (the product's state, its index entry or its stored
 * text, is no longer what it was when the share was taken, so the count is exact whenever a check runs) and
 * is dropped when the write settles, stored or refused (a thrown error included).
 *
 * On a shared store (Redis, several processes) the lock is held across the write as before: the share is the
 * write itself, which every process's index sees, and a reservation in this process's memory would not be.
 */
export function createProductRoom(deps: Deps) {
  const pending = new Map<string, Set<Reservation>>();
  const quotaOf = async (accountId: string) => (await deps.accounts.get(accountId)) ?? { product_quota: DEFAULT_PRODUCT_QUOTA, media_quota_bytes: DEFAULT_MEDIA_QUOTA_BYTES };
  const lockKey = (accountId: string) => `productquota:${accountId}`;

  /** Shares reserved for the writes of `reservations` that `usage` does not show yet (all, when it was not asked about them). */
  function reserved(reservations: readonly Reservation[], usage: ProductUsage) {
    const taken = { products: 0, bytes: 0 };
    reservations.forEach((r, i) => {
      if (usage.landed[i]) return;
      taken.products += r.products;
      taken.bytes += r.bytes;
    });
    return taken;
  }

  function release(accountId: string, reservation: Reservation) {
    const set = pending.get(accountId);
    if (!set) return;
    set.delete(reservation);
    if (set.size === 0) pending.delete(accountId);
  }

  return {
    /**
     * Runs `write` once `claim` fits the account's quotas; throws 403 `quota_exceeded` (nothing run) when it
     * does not. On a shared store `write` runs under the quota lock and gets its lease, to assert right before
     * the write that commits the share.
     */
    async take<T>(accountId: string, claim: RoomClaim, write: (quotaLease?: LockLease) => Promise<T>): Promise<T> {
      if (deps.shared) {
        return deps.lock.withLock(lockKey(accountId), async (lease) => {
          const account = await quotaOf(accountId);
          assertProductRoom(account, (await deps.usage(accountId))(claim.id, []), claim.products, claim.bytes());
          return write(lease);
        });
      }
      const account = await quotaOf(accountId);
      const read = await deps.usage(accountId);
      const bytes = claim.bytes();
      // Counted and recorded in one synchronous step (no await in between), which in one process is what
      // the lock gave: every later check sees this share, and no earlier one is missed.
      const reservations = pending.get(accountId) ?? new Set<Reservation>();
      const under = [...reservations];
      // Every share still reserved, counted as if its write had not landed, is an upper bound: when the claim
      // fits beside it, no look at which writes have landed is needed (on SQLite, a read of the totals alone).
      let usage = read(claim.id, []);
      if (productRoomRefusal(account, usage, claim.products, bytes, reserved(under, usage))) {
        usage = read(claim.id, under);
        assertProductRoom(account, usage, claim.products, bytes, reserved(under, usage));
      }
      const reservation: Reservation = { id: claim.id, before: usage.claimed, products: claim.products, bytes: Math.max(0, bytes) };
      pending.set(accountId, reservations.add(reservation));
      try {
        return await write();
      } finally {
        release(accountId, reservation);
      }
    },
  };
}
