// Imported first by the CLI entry so it runs before any dependency's module code.
import { guardStdout } from "../core/log.ts";

guardStdout();
