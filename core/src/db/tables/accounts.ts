/** Rows of the service's settings and of the account plane (migration 0001). */
export interface AccountTables {
  settings: { name: string; value: string; created_at: string };
  accounts: {
    account_id: string;
    environment: "production" | "test";
    currency: string;
    page_quota: number;
    product_quota: number;
    media_quota_bytes: number;
    created_at: string;
    updated_at: string;
  };
  tokens: { token_hash: string; account_id: string; /** JSON: the scopes. */ scopes: string; expires_at: string | null; created_at: string };
  applications: { application_id: string; name: string; secret_hash: string; created_at: string; updated_at: string };
  application_accounts: { application_id: string; account_id: string; /** Order the accounts were given in. */ position: number };
}
