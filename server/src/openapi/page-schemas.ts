/** Response shapes of pages and generation jobs: written once, in @lp/contract. */
export { jobSchema, jobResponse, pageAcceptedResponse, pageResponse, pageListResponse } from "@lp/contract";
