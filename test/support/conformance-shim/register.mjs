// Preloaded with `node --import` so the conformance CLI runs on Node 20, whose `fs` lacks `globSync`.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
