/**
 * Per event, how many holds keep its outbox entry: the deliveries a fan-out stored under the entry's cover,
 * plus one while the fan-out runs. At zero the entry may go.
 */
export function createEventHolds() {
  const held = new Map<string, number>();
  return {
    add: (eventId: string): void => void held.set(eventId, (held.get(eventId) ?? 0) + 1),
    /** Drops one hold on `eventId`; true when it was the last. */
    drop(eventId: string): boolean {
      const left = (held.get(eventId) ?? 1) - 1;
      if (left > 0) held.set(eventId, left);
      else held.delete(eventId);
      return left <= 0;
    },
    count: (eventId: string): number => held.get(eventId) ?? 0,
    delete: (eventId: string): void => void held.delete(eventId),
    clear: (): void => held.clear(),
  };
}
