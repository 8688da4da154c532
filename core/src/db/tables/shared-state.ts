/** Rows of the state processes sharing a PostgreSQL database keep together (migration 0008). */
export interface SharedStateTables {
  /** A fixed window of a rate limit's hits (`core/src/ports/database-rate-windows.ts`). */
  rate_windows: {
    /** The limit's name and the client address (`checkout:203.0.113.7`). */
    key: string;
    /** Hits in the window so far. */
    count: number;
    /** When the window opened (its key's first hit since the last window ended) and when it ends. */
    started_at: string;
    ends_at: string;
  };
  /** A login token or session of the dashboard (`server/src/dashboard/database-keys.ts`). */
  dashboard_keys: {
    /** `login:` or `session:` and the SHA-256 of the token or cookie: never the token itself. */
    key: string;
    /** What the key stands for (a session's id; `1` for a login token). */
    value: string;
    /** Past it the row is never read, and the next write removes it. */
    expires_at: string;
  };
}
