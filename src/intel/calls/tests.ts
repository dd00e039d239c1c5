/** Test files by convention, across languages; paths are POSIX-style display or relative paths. */

const TEST_FOLDERS = /(^|\/)(tests?|__tests__|specs?|testing|integration_tests|e2e)\//i;
const TEST_NAMES = [
  /\.(test|spec|e2e|integration)\.[cm]?[jt]sx?$/i,
  /(^|\/)test_[^/]+\.py$/,
  /_test\.(py|go|exs?|dart|cc|cpp|c)$/,
  /_spec\.rb$/,
  /(Test|Tests|IT|Spec)\.(java|kt|kts|scala|cs|swift|groovy)$/,
  /(^|\/)conftest\.py$/,
  /Test\.php$/,
];

export function isTestFile(displayPath: string): boolean {
  const normalized = displayPath.replace(/\\/g, "/");
  return TEST_FOLDERS.test(normalized) || TEST_NAMES.some((pattern) => pattern.test(normalized));
}

/** A test file by its name alone (`x_test.go`, `test_x.py`, `x.test.ts`, `XTest.java`, …), whatever folder holds it: a package asked for by name is no test because it sits under `testing/`. */
export function isTestFileName(displayPath: string): boolean {
  const base = displayPath.replace(/\\/g, "/").split("/").pop() ?? "";
  return TEST_NAMES.some((pattern) => pattern.test(base));
}

/** The stem a test file is named after: "src/util.test.ts" → "util", "tests/test_models.py" → "models", "UserServiceTest.java" → "UserService". */
export function testedStem(displayPath: string): string | undefined {
  const base = displayPath.replace(/\\/g, "/").split("/").pop() ?? "";
  const patterns: RegExp[] = [
    /^(.+?)\.(?:test|spec|e2e|integration)\.[^.]+$/i,
    /^test_(.+)\.py$/,
    /^(.+)_test\.[^.]+$/,
    /^(.+)_spec\.rb$/,
    /^(.+?)(?:Test|Tests|IT|Spec)\.[^.]+$/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(base);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** A source file's stem for matching against test names: "src/util.ts" → "util", "pkg/__init__.py" → "pkg". */
export function sourceStem(displayPath: string): string {
  const parts = displayPath.replace(/\\/g, "/").split("/");
  const base = parts.pop() ?? "";
  const stem = base.replace(/\.d\.[cm]?ts$/, "").replace(/\.[^.]+$/, "");
  if (/^(index|__init__|mod|main|lib)$/.test(stem) && parts.length > 0) return parts[parts.length - 1]!;
  return stem;
}
