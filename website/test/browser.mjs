#!/usr/bin/env node
/**
 * The website's browser test: builds the site, serves the build on 127.0.0.1 and drives Debian's
 * chromium through playwright-core (no browser download). It fails when
 * - a page logs a console error, throws, or has a failed request (or a 4xx/5xx response);
 * - following the site's own links from the home page does not reach every built page;
 * - searching for a tool's name does not land on that tool's reference page;
 * - a benchmark chart is blank or does not draw the bars and series of the published runs, or a published
 *   phase lacks its chart (retrieval: acc@5 and function hit@10; accuracy: recall and precision; …);
 * - the light or the dark theme does not render;
 * - a page scrolls sideways at 375 px;
 * - a page loads more JavaScript than JS_BUDGET_BYTES;
 * - an internal link is broken (linkinator over the served build);
 * - axe-core finds a serious or critical accessibility violation.
 * It writes a screenshot of each main page, light and dark, to website/test/screenshots/ (ignored).
 *
 *   npm run test:browser            (from website/; builds first)
 *   node test/browser.mjs --no-build
 *
 * CHROMIUM=/path/to/chromium overrides the browser (default /usr/bin/chromium).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { LinkChecker } from "linkinator";
import { chromium } from "playwright-core";
import { publishedPhases } from "../.vitepress/bench-charts.mjs";

const WEBSITE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(WEBSITE, ".vitepress", "dist");
const SCREENSHOTS = join(WEBSITE, "test", "screenshots");
const PUBLISHED = join(WEBSITE, "..", "bench", "published");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
/**
 * The most JavaScript one page may load on its own, uncompressed: the framework and theme chunks,
 * the page's chunk, and Chart.js on the benchmarks page. Measured when the budget was set: 170 KiB on
 * a plain page, 323 KiB on the benchmarks page (docs/decisions, the website's record).
 */
const JS_BUDGET_BYTES = 450 * 1024;
/** Pages screenshotted for review, light and dark. */
const MAIN_PAGES = ["/", "/start", "/concepts/", "/concepts/writes", "/guides/hosts/claude", "/reference/tools/", "/reference/tools/file-patch", "/reference/config", "/benchmarks", "/compare"];
const SEARCHED_TOOL = "file_patch";

const failures = [];
const fail = (message) => {
  failures.push(message);
  console.error(`FAIL ${message}`);
};

// ---------------------------------------------------------------- build and serve

if (!process.argv.includes("--no-build")) {
  console.error("building the site…");
  const build = spawnSync("npx", ["vitepress", "build", "."], { cwd: WEBSITE, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
if (!existsSync(join(DIST, "index.html"))) {
  console.error(`no build in ${DIST}; run without --no-build`);
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`chromium not found at ${CHROMIUM}; install it (apt-get install -y chromium) or set CHROMIUM`);
  process.exit(1);
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".svg": "image/svg+xml", ".png": "image/png", ".woff2": "font/woff2", ".ico": "image/x-icon" };

/** The file a URL path names, the way the site is meant to be hosted (clean URLs: /start → start.html). */
function fileFor(urlPath) {
  const decoded = decodeURIComponent(urlPath.split("?")[0].split("#")[0]);
  const base = resolve(DIST, `.${decoded}`);
  if (base !== DIST && !base.startsWith(DIST + sep)) return undefined;
  for (const candidate of [base, `${base}.html`, join(base, "index.html")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const server = createServer((request, response) => {
  const file = fileFor(request.url ?? "/");
  if (!file) {
    response.writeHead(404, { "content-type": "text/html" }).end(readFileSync(join(DIST, "404.html")));
    return;
  }
  response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const ORIGIN = `http://127.0.0.1:${server.address().port}`;

/** Every built page as its clean URL path. */
function builtPages() {
  const pages = [];
  for (const entry of readdirSync(DIST, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".html") || file === "404.html") continue;
    const path = `/${file.split(sep).join("/")}`.replace(/index\.html$/, "").replace(/\.html$/, "");
    pages.push(path);
  }
  return pages.sort();
}

/** The charts the page must draw, in order: each one's bar labels and series names, from the published runs. */
function expectedCharts() {
  const published = readdirSync(PUBLISHED)
    .filter((file) => file.endsWith(".json"))
    .map((file) => ({ file, run: JSON.parse(readFileSync(join(PUBLISHED, file), "utf8")) }));
  return publishedPhases(published).flatMap((phase) => phase.charts.map((chart) => ({ phase: phase.phase, labels: chart.labels, datasets: chart.series.map((series) => series.name) })));
}

/**
 * Series a phase's charts must include whenever a published run has that phase, stated here apart from
 * bench-charts.mjs so that a chart it stopped producing is caught.
 */
const REQUIRED_SERIES = {
  retrieval: ["acc@5", "function hit@10"],
  accuracy: ["recall", "precision"],
  first: ["fresh process, empty cache"],
  intel: ["index ÷ parse-only"],
};

// ---------------------------------------------------------------- the browser

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
const axeSource = readFileSync(join(WEBSITE, "node_modules", "axe-core", "axe.min.js"), "utf8");
mkdirSync(SCREENSHOTS, { recursive: true });

/** A page that records console errors, uncaught exceptions and failed requests. */
async function openPage(context, path) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  const response = await page.goto(`${ORIGIN}${path}`, { waitUntil: "networkidle" });
  if (!response || response.status() !== 200) problems.push(`status ${response?.status()} for ${path}`);
  return { page, problems };
}

/**
 * The JavaScript a page loaded, uncompressed, from the browser's own resource timing (cached or not);
 * chunks of other pages that the site prefetches for its links are not counted.
 */
function scriptBytesOf(page) {
  return page.evaluate(() => {
    const prefetched = new Set([...document.querySelectorAll('link[rel="prefetch"]')].map((link) => link.href));
    return performance
      .getEntriesByType("resource")
      .filter((entry) => new URL(entry.name).pathname.endsWith(".js") && !prefetched.has(entry.name))
      .reduce((sum, entry) => sum + entry.decodedBodySize, 0);
  });
}

const pages = builtPages();
console.error(`${pages.length} pages built; serving at ${ORIGIN}`);
const light = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });

// 1. Every page: no console error, no failed request, JavaScript under budget, no serious axe violation.
let heaviest = { path: "", bytes: 0 };
let lightest = { path: "", bytes: Number.POSITIVE_INFINITY };
for (const path of pages) {
  const { page, problems } = await openPage(light, path);
  const title = await page.title();
  if (!title.includes("ast-mcp")) problems.push(`title "${title}" does not name the site`);
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical").map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(", ")}`);
  });
  for (const violation of violations) problems.push(`axe: ${violation}`);
  const bytes = await scriptBytesOf(page);
  if (bytes > heaviest.bytes) heaviest = { path, bytes };
  if (bytes < lightest.bytes) lightest = { path, bytes };
  if (bytes > JS_BUDGET_BYTES) problems.push(`loads ${bytes} bytes of JavaScript, over the budget of ${JS_BUDGET_BYTES}`);
  for (const problem of problems) fail(`${path}: ${problem}`);
  await page.close();
}
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
console.error(`every page checked; JavaScript per page from ${kib(lightest.bytes)} (${lightest.path}) to ${kib(heaviest.bytes)} (${heaviest.path}), budget ${kib(JS_BUDGET_BYTES)}`);

// 2. Navigation: the site's own links, followed from the home page, reach every built page.
{
  const reached = new Set();
  const queue = ["/"];
  const page = await light.newPage();
  while (queue.length > 0) {
    const path = queue.shift();
    if (reached.has(path)) continue;
    reached.add(path);
    await page.goto(`${ORIGIN}${path}`, { waitUntil: "domcontentloaded" });
    const links = await page.$$eval("a[href]", (anchors) => anchors.map((anchor) => anchor.href));
    for (const link of links) {
      const url = new URL(link);
      if (url.origin !== ORIGIN) continue;
      const target = url.pathname.replace(/\.html$/, "");
      if (!reached.has(target)) queue.push(target);
    }
  }
  await page.close();
  const unreached = pages.filter((path) => !reached.has(path));
  if (unreached.length > 0) fail(`navigation does not reach: ${unreached.join(", ")}`);
  else console.error(`navigation reaches all ${pages.length} pages`);
}

// 3. Search: typing a tool's name into the site's own search lands on that tool's page.
{
  const { page, problems } = await openPage(light, "/");
  await page.locator(".VPNavBarSearch button").first().click();
  const input = page.locator("#localsearch-input");
  await input.waitFor({ state: "visible", timeout: 15_000 });
  await input.fill(SEARCHED_TOOL);
  await page.locator(".VPLocalSearchBox .result").first().waitFor({ state: "visible", timeout: 15_000 });
  await page.keyboard.press("Enter");
  const expected = `/reference/tools/${SEARCHED_TOOL.replaceAll("_", "-")}`;
  await page.waitForURL((url) => url.pathname === expected, { timeout: 15_000 }).catch(() => {});
  const landed = new URL(page.url()).pathname;
  if (landed !== expected) fail(`search for ${SEARCHED_TOOL} landed on ${landed}, not ${expected}`);
  else console.error(`search for ${SEARCHED_TOOL} lands on ${landed}`);
  for (const problem of problems) fail(`search: ${problem}`);
  await page.close();
}

// 4. Charts: every chart draws pixels, and the charts draw exactly the bars and series of the published runs.
{
  const { page, problems } = await openPage(light, "/benchmarks");
  await page.waitForFunction(() => [...document.querySelectorAll(".bench-chart canvas")].every((canvas) => canvas.dataset.series), undefined, { timeout: 15_000 }).catch(() => {});
  const charts = await page.$$eval(".bench-chart canvas", (canvases) =>
    canvases.map((canvas) => {
      const context = canvas.getContext("2d");
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted++;
      return {
        phase: canvas.closest("[data-phase]")?.getAttribute("data-phase"),
        labels: JSON.parse(canvas.dataset.series ?? "[]"),
        datasets: JSON.parse(canvas.dataset.datasets ?? "[]"),
        painted,
        width: canvas.width,
        height: canvas.height,
      };
    })
  );
  const expected = expectedCharts();
  if (expected.length === 0) fail("no published benchmark comparison to chart (bench/published/ is empty)");
  const drawn = charts.map(({ phase, labels, datasets }) => ({ phase, labels, datasets }));
  if (JSON.stringify(drawn) !== JSON.stringify(expected)) fail(`charts draw ${JSON.stringify(drawn)}, expected ${JSON.stringify(expected)}`);
  for (const [phase, required] of Object.entries(REQUIRED_SERIES)) {
    if (!expected.some((chart) => chart.phase === phase)) continue;
    const names = new Set(charts.filter((chart) => chart.phase === phase).flatMap((chart) => chart.datasets));
    const missing = required.filter((name) => !names.has(name));
    if (missing.length > 0) fail(`the ${phase} phase is published but no chart draws ${missing.join(", ")}`);
  }
  for (const [index, chart] of charts.entries()) {
    if (chart.width === 0 || chart.height === 0 || chart.painted < 500) fail(`chart ${index + 1} (${chart.phase}) is blank (${chart.painted} painted pixels)`);
  }
  console.error(`${charts.length} charts drawn over ${new Set(charts.map((chart) => chart.phase)).size} phases: ${charts.map((chart) => `${chart.phase} ${chart.labels.length}×${chart.datasets.length}`).join(", ")}`);
  for (const problem of problems) fail(`benchmarks: ${problem}`);
  await page.close();
}

// 5. Themes: the main pages render in light and dark (screenshots for review), and look different.
const dark = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
for (const path of MAIN_PAGES) {
  const backgrounds = [];
  for (const [name, context] of [["light", light], ["dark", dark]]) {
    const { page, problems } = await openPage(context, path);
    const state = await page.evaluate(() => ({
      dark: document.documentElement.classList.contains("dark"),
      background: getComputedStyle(document.body).backgroundColor,
      text: document.body.innerText.trim().length,
    }));
    if (state.dark !== (name === "dark")) fail(`${path}: the ${name} theme is not applied`);
    if (state.text < 50) fail(`${path}: almost no text rendered in the ${name} theme`);
    backgrounds.push(state.background);
    const file = `${path === "/" ? "home" : path.replace(/^\/|\/$/g, "").replaceAll("/", "-")}-${name}.png`;
    await page.screenshot({ path: join(SCREENSHOTS, file), fullPage: true });
    for (const problem of problems) fail(`${path} (${name}): ${problem}`);
    await page.close();
  }
  if (backgrounds[0] === backgrounds[1]) fail(`${path}: light and dark backgrounds are the same (${backgrounds[0]})`);
}
console.error(`screenshots of ${MAIN_PAGES.length} pages, light and dark, in ${relative(process.cwd(), SCREENSHOTS)}`);

// 6. Phones: no page scrolls sideways at 375 px.
{
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  for (const path of pages) {
    const { page } = await openPage(phone, path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 0) {
      const culprits = await page.evaluate(() =>
        [...document.querySelectorAll("body *")]
          .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
          .slice(0, 3)
          .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`)
      );
      fail(`${path}: ${overflow} px of horizontal overflow at 375 px (${culprits.join(", ")})`);
    }
    if (path === "/benchmarks") await page.screenshot({ path: join(SCREENSHOTS, "benchmarks-375.png"), fullPage: true });
    await page.close();
  }
  await phone.close();
  console.error("no horizontal overflow check done at 375 px");
}
await browser.close();

// 7. Links: no broken internal link anywhere in the served build (external links are not fetched).
{
  const checker = new LinkChecker();
  // cleanUrls: resolve links against /start, not /start/ (linkinator would add the slash to an extensionless URL).
  const result = await checker.check({ path: `${ORIGIN}/`, recurse: true, cleanUrls: true, linksToSkip: [`^(?!${ORIGIN.replaceAll(".", "\\.")})`], concurrency: 8 });
  const broken = result.links.filter((link) => link.state === "BROKEN");
  for (const link of broken) fail(`broken link: ${link.url} (status ${link.status}) on ${link.parent}`);
  console.error(`linkinator checked ${result.links.length} links, ${broken.length} broken`);
}

server.close();
if (failures.length > 0) {
  console.error(`\n${failures.length} failure(s)`);
  process.exit(1);
}
console.error("\nthe browser test passed");
