declare const __LP_VERSION__: string | undefined;

/** The CLI's version, set at build time from cli/package.json. */
export const VERSION: string = typeof __LP_VERSION__ === "string" ? __LP_VERSION__ : "0.0.0-dev";
