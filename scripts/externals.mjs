// The packages scripts/build.mjs leaves out of dist/: they load from node_modules at run time (native
// parsers, formatter plugins, the TypeScript compiler), so scripts/build-mcpb.ts ships them, and what
// they depend on, beside dist/ in the Claude Desktop bundle. Patterns as `bun build --external` takes them.
export const RUNTIME_EXTERNALS = ["@ast-grep/*", "@dprint/*", "typescript"];
// Left out of dist/hook.cjs only (loaded for allow-lists); the other bundles include it.
export const HOOK_EXTERNALS = ["picomatch"];
