// Types of scripts/externals.mjs (plain JavaScript, so that node runs scripts/build.mjs without a compiler).
export declare const RUNTIME_EXTERNALS: readonly string[];
export declare const HOOK_EXTERNALS: readonly string[];
