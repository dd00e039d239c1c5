/**
 * The TypeScript compiler is large (≈9 MB of JavaScript): it is loaded on the first typed request
 * only, from its installed package (the bundle keeps it external), and shared afterwards.
 */
import type * as TS from "typescript";

export type TypeScriptModule = typeof TS;

let loading: Promise<TypeScriptModule> | undefined;

export function loadTypeScript(): Promise<TypeScriptModule> {
  loading ??= import("typescript").then((module) => {
    // The package is CommonJS: Node exposes it as the default export, Bun also spreads the names.
    const candidate = (module as { default?: TypeScriptModule }).default ?? (module as unknown as TypeScriptModule);
    if (typeof candidate.createLanguageService !== "function") throw new Error("the typescript package does not export createLanguageService");
    return candidate;
  });
  // A failed load (a broken install) is retried by the next request rather than remembered.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
