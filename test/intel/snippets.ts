/**
 * One small valid program per language, and a broken variant whose first syntax error is on
 * `brokenLine` (1-based).
 */
export interface LanguageSnippet {
  valid: string;
  broken: string;
  brokenLine: number;
}

export const SNIPPETS: Record<string, LanguageSnippet> = {
  typescript: {
    valid: "interface P { x: number }\nexport function f(p: P): number {\n  return p.x * 2;\n}\n",
    broken: "interface P { x: number }\nexport function f(p: P): number {\n  return p.x * ;\n}\n",
    brokenLine: 3,
  },
  tsx: {
    valid: "export const App = (props: { name: string }) => <div className=\"a\">{props.name}</div>;\n",
    broken: "export const A = 1;\nexport const App = () => <div className=\"a\">{</div>;\n",
    brokenLine: 2,
  },
  javascript: {
    valid: "const el = <App name=\"x\" />;\nfunction f(a, b) {\n  return a + b;\n}\n",
    broken: "const x = 1;\nfunction f(a, b {\n  return a + b;\n}\n",
    brokenLine: 2,
  },
  python: {
    valid: "import os\n\ndef f(x):\n    return os.path.join(x, 'a')\n",
    broken: "import os\n\ndef f(x:\n    return os.path.join(x, 'a')\n",
    brokenLine: 3,
  },
  go: {
    valid: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\", 1)\n}\n",
    broken: "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\", 1\n}\n",
    brokenLine: 6,
  },
  rust: {
    valid: "fn main() {\n    let v: Vec<i32> = vec![1, 2];\n    println!(\"{}\", v.len());\n}\n",
    broken: "fn main() {\n    let v: Vec<i32> = vec![1, 2];\n    let = 3;\n}\n",
    brokenLine: 3,
  },
  java: {
    valid: "class A {\n  void f() {\n    System.out.println(\"x\");\n  }\n}\n",
    broken: "class A {\n  void f() {\n    System.out.println(\"x\";\n  }\n}\n",
    brokenLine: 3,
  },
  kotlin: {
    valid: "fun main() {\n    val x = listOf(1, 2)\n    println(x.size)\n}\n",
    broken: "fun main() {\n    val x = listOf(1, 2)\n    println(x.size\n}\n",
    brokenLine: 3,
  },
  c: {
    valid: "#include <stdio.h>\nint main(void) {\n  printf(\"%d\\n\", 1);\n  return 0;\n}\n",
    broken: "#include <stdio.h>\nint main(void) {\n  printf(\"%d\\n\", 1;\n  return 0;\n}\n",
    brokenLine: 3,
  },
  cpp: {
    valid: "#include <vector>\nint main() {\n  std::vector<int> v{1, 2};\n  return v.size();\n}\n",
    broken: "int main() {\n  return 0;\n}\nint g( {\n",
    brokenLine: 4,
  },
  csharp: {
    valid: "class A {\n  void F() {\n    System.Console.WriteLine(\"x\");\n  }\n}\n",
    broken: "class A {\n  void F() {\n    System.Console.WriteLine(\"x\";\n  }\n}\n",
    brokenLine: 3,
  },
  ruby: {
    valid: "class A\n  def f(x)\n    puts x\n  end\nend\n",
    broken: "x = 1\ny = 2 +* 3\nz = 3\n",
    brokenLine: 2,
  },
  php: {
    valid: "<?php\nfunction f($x) {\n  echo $x;\n}\n",
    broken: "<?php\nfunction f($x) {\n  echo $x\n}\n",
    brokenLine: 3,
  },
  swift: {
    valid: "func f(x: Int) -> Int {\n    return x * 2\n}\nprint(f(x: 1))\n",
    broken: "func f(x: Int) -> Int {\n    return x * 2\n}\nprint(f(x: 1)\n",
    brokenLine: 4,
  },
  scala: {
    valid: "object A {\n  def f(x: Int): Int = x * 2\n}\n",
    broken: "object A {\n  def f(x: Int: Int = x * 2\n}\n",
    brokenLine: 2,
  },
  lua: {
    valid: "local function f(x)\n  return x * 2\nend\nprint(f(1))\n",
    broken: "local function f(x)\n  return x * 2\nend\nprint(f(1)\n",
    brokenLine: 4,
  },
  bash: {
    valid: "#!/bin/bash\nif [ -n \"$1\" ]; then\n  echo \"$1\"\nfi\n",
    broken: "#!/bin/bash\necho a\nfor x in a b; do echo $x; done done\necho b\n",
    brokenLine: 3,
  },
  elixir: {
    valid: "defmodule A do\n  def f(x), do: x * 2\nend\n",
    broken: "x = 1\ny = 1 + * 2\nz = 3\n",
    brokenLine: 2,
  },
  haskell: {
    valid: "module Main where\n\nmain :: IO ()\nmain = print (f 1)\n\nf :: Int -> Int\nf x = x * 2\n",
    broken: "module Main where\n\nmain :: IO ()\nmain = print (f 1\n\nf :: Int -> Int\nf x = x * 2\n",
    brokenLine: 4,
  },
  dart: {
    valid: "void main() {\n  var x = [1, 2];\n  print(x.length);\n}\n",
    broken: "void main() {\n  var x = [1, 2];\n  print(x.length;\n}\n",
    brokenLine: 3,
  },
  sql: {
    valid: "SELECT a, b FROM t WHERE a = 1;\n",
    broken: "SELECT a FROM t;\nSELECT a FROM t WHERE (a = 1;\n",
    brokenLine: 2,
  },
  json: {
    valid: "{\n  \"a\": [1, 2],\n  \"b\": {\"c\": null}\n}\n",
    broken: "{\n  \"a\": [1, 2],\n  \"b\": {\"c\" null}\n}\n",
    brokenLine: 3,
  },
  jsonc: {
    valid: "{\n  // a comment\n  \"a\": [1, 2]\n}\n",
    broken: "{\n  // a comment\n  \"a\": [1 2\n}\n",
    brokenLine: 3,
  },
  yaml: {
    valid: "a: 1\nb:\n  - x\n  - y\n",
    broken: "a: 1\nb: [x, y\nc: 2\n",
    brokenLine: 2,
  },
  toml: {
    valid: "[package]\nname = \"a\"\nversion = \"1.0\"\n",
    broken: "[package]\nname = \"a\"\nversion = \n",
    brokenLine: 3,
  },
  markdown: {
    valid: "# Title\n\nSome *text*.\n\n- item\n",
    // Markdown accepts any text; an unclosed fenced code block still parses, so there is no broken form.
    broken: "",
    brokenLine: 0,
  },
  html: {
    valid: "<!DOCTYPE html>\n<html><body><p class=\"a\">Hi</p></body></html>\n",
    broken: "<p>ok</p>\n<div class=\"a></div>\n",
    brokenLine: 2,
  },
  css: {
    valid: "a { color: red; }\n.b > c { margin: 0 auto; }\n",
    broken: "a { color: red; }\n.b > c { margin: 0 auto;\n",
    brokenLine: 2,
  },
};
