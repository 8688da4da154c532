/** A change worth telling partners about, as the service that made it describes it. */
export interface DomainEvent {
  type: string;
  account_id: string;
  /** The resource as the API returns it. */
  data: unknown;
}

/** Where every service reports its state changes; the webhook engine fans them out. */
export interface EventSink {
  emit(event: DomainEvent): Promise<void>;
}

/** A sink that drops events, for cores built without a webhook engine. */
export const nullEventSink: EventSink = { emit: async () => {} };
