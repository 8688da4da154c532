import type { Migration } from "kysely/migration";
import type { Dialect } from "../database.js";
import { accountsMigration } from "./0001-accounts.js";
import { productsMigration } from "./0002-products.js";
import { pagesMigration } from "./0003-pages.js";
import { deploymentsMigration } from "./0004-deployments.js";
import { webhooksMigration } from "./0005-webhooks.js";
import { idempotencyMigration } from "./0006-idempotency.js";
import { productTotalsMigration } from "./0007-product-totals.js";
import { sharedStateMigration } from "./0008-shared-state.js";

/**
 * Every migration of the schema, by name; Kysely's migrator runs those a database lacks in name order.
 * A migration, once released, never changes: a change of schema is a new one.
 */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    "0001-accounts": accountsMigration(dialect),
    "0002-products": productsMigration(dialect),
    "0003-pages": pagesMigration(dialect),
    "0004-deployments": deploymentsMigration(dialect),
    "0005-webhooks": webhooksMigration(dialect),
    "0006-idempotency": idempotencyMigration(dialect),
    "0007-product-totals": productTotalsMigration(dialect),
    "0008-shared-state": sharedStateMigration(dialect),
  };
}
