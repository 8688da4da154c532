/** Rows of pages and their generation jobs (migration 0003). */
export interface PageTables {
  page_jobs: {
    job_id: string;
    account_id: string;
    status: "processing" | "completed" | "failed";
    step: "analyzing_product" | "writing_copy" | "generating_images" | "building_page" | "done";
    step_detail: string;
    page_id: string | null;
    /** JSON: what was asked (product, language, angle, design, checkout fields, simulation). */
    request: string;
    /** JSON: the job's warnings, `[{ code, message }]`. */
    warnings: string;
    /** JSON: when each step began, by step name. */
    step_times: string;
    error_code: string | null;
    error_message: string | null;
    created_at: string;
    updated_at: string;
    completed_at: string | null;
    /** When the job's work is next due; null once it is settled (`db/queue.ts`). */
    due_at: string | null;
    lease_owner: string | null;
    lease_expires_at: string | null;
  };
  pages: {
    id: string;
    account_id: string;
    product_id: string;
    slug: string;
    status: "draft" | "published";
    language: string;
    hero_image_url: string | null;
    deployed_url: string | null;
    job_id: string;
    /** The slug and the product's title, lower-cased: what `q` of GET /pages searches. */
    search_text: string;
    /** JSON: the product as it was when the page was generated. */
    product: string;
    /** JSON: the page's sections. */
    content: string;
    /** JSON: the theme. */
    global_theme: string;
    /** JSON: the SEO settings. */
    seo_config: string;
    /** JSON: the checkout form's fields. */
    checkout_fields: string;
    created_at: string;
    updated_at: string;
  };
}
