"""The Python side of the accuracy bench (bench/accuracy.ts runs it with Debian's python3 and
python3-jedi): `decls ROOT` prints each function and method declared under ROOT (Python's own `ast`),
`called ROOT` prints the names called (no jedi), `calls ROOT NAME,NAME,...` prints each call of one of those names with what jedi's goto resolves its
name to (none: jedi could not resolve it). One JSON object a line; lines and columns 1-based."""
import ast
import json
import os
import sys

import jedi


def python_files(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def parse(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        return text, ast.parse(text)
    except SyntaxError:
        return text, None


def declarations(path, tree):
    def visit(body, owners):
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body, owners + [node.name])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kind = "method" if owners else "function"
                qualified = ".".join(owners + [node.name])
                print(json.dumps({"t": "decl", "file": path, "line": node.lineno, "name": node.name, "qualifiedName": qualified, "kind": kind}))

    visit(tree.body, [])


def call_sites(tree, wanted):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and (wanted is None or func.id in wanted):
            yield func.id, func.lineno, func.col_offset
        elif isinstance(func, ast.Attribute) and (wanted is None or func.attr in wanted) and func.end_lineno is not None:
            # The attribute's own position: the end of the expression less its name.
            yield func.attr, func.end_lineno, func.end_col_offset - len(func.attr)


def main():
    mode, root = sys.argv[1], os.path.realpath(sys.argv[2])
    if mode == "decls":
        for path in python_files(root):
            _text, tree = parse(path)
            if tree is not None:
                declarations(path, tree)
        return
    if mode == "called":
        names = set()
        for path in python_files(root):
            _text, tree = parse(path)
            if tree is not None:
                names.update(name for name, _line, _column in call_sites(tree, None))
        for name in sorted(names):
            print(json.dumps({"t": "called", "name": name}))
        return
    wanted = set(sys.argv[3].split(","))
    project = jedi.Project(os.path.dirname(root))
    for path in python_files(root):
        text, tree = parse(path)
        if tree is None:
            continue
        sites = sorted(set(call_sites(tree, wanted)), key=lambda site: (site[1], site[2]))
        if not sites:
            continue
        script = jedi.Script(text, path=path, project=project)
        for name, line, column in sites:
            targets = []
            try:
                found = script.goto(line, column, follow_imports=True)
            except Exception:
                found = []
            for definition in found:
                module = definition.module_path
                targets.append({"file": str(module) if module else None, "line": definition.line, "type": definition.type})
            print(json.dumps({"t": "call", "file": path, "line": line, "column": column + 1, "name": name, "targets": targets}))


main()
