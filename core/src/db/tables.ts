import type { AccountTables } from "./tables/accounts.js";
import type { IdempotencyTables } from "./tables/idempotency.js";
import type { MediaTables } from "./tables/media.js";
import type { ProductTables } from "./tables/products.js";
import type { WebhookTables } from "./tables/webhooks.js";
import type { PageTables } from "./tables/pages.js";
import type { DeploymentTables } from "./tables/deployments.js";
import type { SharedStateTables } from "./tables/shared-state.js";

/** Every table of lp's schema, as Kysely types its queries (`tables/*.ts`, one file per area). */
export interface Tables extends AccountTables, ProductTables, MediaTables, PageTables, DeploymentTables, WebhookTables, IdempotencyTables, SharedStateTables {}
