import { describe, expect, test } from "bun:test";
import { SqueezeFormatError, squeeze, unsqueeze } from "../../../src/intel/squeeze.ts";
import { random } from "../../support/random.ts";

const ALPHABET = [
  "a",
  "b",
  "Z",
  "0",
  "7",
  " ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "§",
  "<",
  "*",
  ">",
  "<*>",
  ":",
  "-",
  ".",
  "é",
  "世",
  "🌍",
  "\u2028",
  "\ud800",
  "J",
  "T",
  "×",
  "[",
  "]",
  "\\",
  "\"",
];

function randomString(next: () => number, length: number): string {
  let out = "";
  for (let index = 0; index < length; index++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

const LEVELS = ["INFO", "WARN", "ERROR", "DEBUG"];

function randomLog(next: () => number): string {
  const eol = ["\n", "\r\n", "\r"][Math.floor(next() * 3)]!;
  const lines: string[] = [];
  const count = Math.floor(next() * 200);
  let clock = Math.floor(next() * 1e6);
  while (lines.length < count) {
    const pick = next();
    clock += Math.floor(next() * 900);
    if (pick < 0.45) {
      lines.push(
        `2024-03-0${1 + Math.floor(next() * 3)}T10:${String(Math.floor(clock / 60000) % 60).padStart(2, "0")}:${String(Math.floor(clock / 1000) % 60).padStart(2, "0")}.${
          clock % 1000
        }Z ${LEVELS[Math.floor(next() * 4)]} req=${Math.floor(next() * 1e9).toString(16)} ${Math.floor(next() * 500)}ms`,
      );
    } else if (pick < 0.6) {
      const line = `GET /health ${next() < 0.9 ? 200 : 503}`;
      const times = 1 + Math.floor(next() * 12);
      for (let copy = 0; copy < times; copy++) lines.push(line);
    } else if (pick < 0.7) {
      const block = ["Traceback (most recent call last):", `  File "app.py", line ${Math.floor(next() * 90)}`, "ValueError: bad"];
      const times = 1 + Math.floor(next() * 4);
      for (let copy = 0; copy < times; copy++) lines.push(...block);
    } else if (pick < 0.8) {
      lines.push(randomString(next, Math.floor(next() * 12)));
    } else if (pick < 0.85) {
      lines.push(["§1 2 3", "§T1 <*>", "§×3 x", "§[2×2]", "§§", "§J \"x\"", "§squeeze v1 eol=lf final=1 lines=1", "§"][Math.floor(next() * 8)]!);
    } else if (pick < 0.9) {
      lines.push("");
    } else {
      lines.push(`worker-${Math.floor(next() * 4)} processed batch ${Math.floor(next() * 1e4)} of ${Math.floor(next() * 1e4)} (${(next() * 100).toFixed(1)}%) ✓`);
    }
  }
  return lines.join(eol) + (next() < 0.5 ? eol : "");
}

function roundTrips(text: string): void {
  const squeezed = squeeze(text);
  expect(squeezed.stats.fellBack).toBe(false);
  expect(unsqueeze(squeezed.text)).toBe(text);
  expect(squeezed.stats.squeezedChars).toBe(squeezed.text.length);
}

describe("squeeze round trip", () => {
  test("edge cases come back exactly", () => {
    const cases = [
      "",
      "\n",
      "\n\n\n",
      "\r\n",
      "\r",
      "x",
      "no newline at end",
      "a\nb",
      "a\r\nb\r\n",
      "a\rb\rc",
      "mixed\r\nendings\nand\rmore\r\n",
      "crlf\r\nwith a lone\n inside\r\n",
      "§",
      "§\n§§\n§×2 x\n§[1×2]\n§T1 <*>\n§1 5\n§J \"q\"\n",
      "<*> 1\n<*> 2\n<*> 3\n",
      "unicode é 世界 🌍 line 1\nunicode é 世界 🌍 line 2\nunicode é 世界 🌍 line 3\n",
      "lone surrogate \ud800 1\nlone surrogate \ud800 2\n",
      "sep\u2028inside 1\nsep\u2028inside 2\nsep\u2028inside 3\n",
      "trailing space 1 \ntrailing space 2 \n",
      "  \n  \n  \n",
      "x\n".repeat(1000),
      "a\nb\n".repeat(50),
      "id 1\nid 12\nid 123\nid 1\n",
    ];
    for (const text of cases) roundTrips(text);
  });

  test("random logs and random strings come back exactly", () => {
    const used = { templates: 0, repeatedLines: 0, blocks: 0 };
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const text = seed % 3 === 0 ? randomString(next, Math.floor(next() * 400)) : randomLog(next);
      const squeezed = squeeze(text);
      if (squeezed.stats.fellBack || unsqueeze(squeezed.text) !== text) throw new Error(`seed ${seed} does not round-trip: ${JSON.stringify(text).slice(0, 300)}`);
      used.templates += squeezed.stats.templates;
      used.repeatedLines += squeezed.stats.repeatedLines;
      if (squeezed.text.includes("\n§[")) used.blocks++;
    }
    // The inputs exercise every kind of record, not only the plain path.
    expect(used.templates).toBeGreaterThan(100);
    expect(used.repeatedLines).toBeGreaterThan(100);
    expect(used.blocks).toBeGreaterThan(10);
  });
});

describe("squeeze compression", () => {
  test("runs of one line become one counted record", () => {
    const text = `start\n${"GET /health 200\n".repeat(40)}end\n`;
    const { text: squeezed, stats } = squeeze(text);
    expect(squeezed.split("\n")).toEqual(["§squeeze v1 eol=lf final=1 lines=42", "start", "§×40 GET /health 200", "end"]);
    expect(stats.repeatedLines).toBe(40);
  });

  test("a repeated block of lines becomes one block record", () => {
    const block = "Error: boom\n  at f (a.js:1:2)\n  at g (b.js:3:4)\n";
    const { text: squeezed } = squeeze(`${block.repeat(5)}tail\n`);
    expect(squeezed.split("\n").slice(1)).toEqual(["§[3×5]", "Error: boom", "  at f (a.js:1:2)", "  at g (b.js:3:4)", "tail"]);
  });

  test("lines that differ only in numbers and ids become a template and rows", () => {
    const lines = Array.from({ length: 20 }, (_, index) => `2024-01-01T12:00:${String(index).padStart(2, "0")}Z INFO user=u${100 + index} took ${index * 7}ms status=200`);
    const { text: squeezed, stats } = squeeze(`${lines.join("\n")}\n`);
    const records = squeezed.split("\n");
    // The shared timestamp prefix and the constant status move into the template.
    expect(records[1]).toBe("§T1 2024-01-01T12:00:<*>Z INFO user=u1<*> took <*>ms status=200");
    expect(records[2]).toBe("§1 00 00 0");
    expect(records[21]).toBe("§1 19 19 133");
    expect(stats.templates).toBe(1);
    expect(stats.templatedLines).toBe(20);
    expect(stats.squeezedChars).toBeLessThan(stats.originalChars * 0.5);
  });

  test("interleaved templates keep their order", () => {
    const lines: string[] = [];
    for (let index = 0; index < 10; index++) lines.push(`worker ${index} started job ${index * 3}`, `worker ${index} finished job ${index * 3} in ${index}s`);
    const text = lines.join("\n");
    const { text: squeezed, stats } = squeeze(text);
    expect(stats.templates).toBe(2);
    expect(squeezed.split("\n")[1]).toStartWith("§T1 worker <*> started job <*>");
    expect(unsqueeze(squeezed)).toBe(text);
  });

  test("text with nothing repeated is written line by line", () => {
    const text = "alpha\nbeta\ngamma";
    const { text: squeezed, stats } = squeeze(text);
    expect(squeezed).toBe("§squeeze v1 eol=lf final=0 lines=3\nalpha\nbeta\ngamma");
    expect(stats.templates + stats.repeatedLines).toBe(0);
  });

  test("CRLF text is split on CRLF and keeps a stray LF as a JSON line", () => {
    const text = "a\r\nb\nc\r\n";
    const { text: squeezed } = squeeze(text);
    expect(squeezed).toBe("§squeeze v1 eol=crlf final=1 lines=2\na\n§J \"b\\nc\"");
    expect(unsqueeze(squeezed)).toBe(text);
  });
});

describe("unsqueeze refuses what squeeze never writes", () => {
  const bad = [
    "no header",
    "§squeeze v1 eol=lf final=1 lines=2\nonly one",
    "§squeeze v1 eol=lf final=1 lines=1\n§9 5",
    "§squeeze v1 eol=lf final=1 lines=1\n§T1 <*> <*>\n§1 5",
    "§squeeze v1 eol=lf final=1 lines=1\n§Q what",
    "§squeeze v1 eol=lf final=1 lines=2\n§[2×1]\nx",
    "§squeeze v1 eol=lf final=1 lines=1\n§J 5",
    "§squeeze v1 eol=lf final=1 lines=3\n§×999999999 x",
  ];
  for (const text of bad) {
    test(JSON.stringify(text.slice(0, 60)), () => {
      expect(() => unsqueeze(text)).toThrow(SqueezeFormatError);
    });
  }
});
