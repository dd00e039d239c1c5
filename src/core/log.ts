/**
 * Logging goes to stderr only: in stdio mode stdout carries JSON-RPC and nothing else.
 * Level from AST_MCP_LOG_LEVEL (debug|info|warn|error), default info.
 */

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

function isLevel(value: string | undefined): value is LogLevel {
  return value !== undefined && Object.hasOwn(LEVELS, value);
}

let threshold: number = LEVELS[isLevel(process.env.AST_MCP_LOG_LEVEL) ? process.env.AST_MCP_LOG_LEVEL : "info"];

export function setLogLevel(level: LogLevel): void {
  threshold = LEVELS[level];
}

function emit(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  let line = `ast-mcp ${level}: ${message}`;
  if (fields) {
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const text = value instanceof Error ? (value.stack ?? value.message) : typeof value === "string" ? value : JSON.stringify(value);
      line += ` ${key}=${text}`;
    }
  }
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // stderr gone: nothing left to tell.
  }
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => emit("debug", message, fields),
  info: (message: string, fields?: Record<string, unknown>) => emit("info", message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => emit("warn", message, fields),
  error: (message: string, fields?: Record<string, unknown>) => emit("error", message, fields),
};

/**
 * Route console.log/info/debug to stderr so a stray call from any dependency cannot
 * corrupt a stdout that carries JSON-RPC.
 */
export function guardStdout(): void {
  const toStderr = (...args: unknown[]) => {
    try {
      process.stderr.write(`${args.map((a) => (typeof a === "string" ? a : inspectValue(a))).join(" ")}\n`);
    } catch {
      // ignore
    }
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  console.trace = toStderr;
}

function inspectValue(value: unknown): string {
  if (value instanceof Error) return value.stack ?? value.message;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
