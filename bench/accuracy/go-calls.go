// The Go side of the accuracy bench (bench/accuracy.ts builds it into the bench cache, never the
// repository): type-checks every package under a folder of GOPATH with go/types (GOPATH mode,
// dependencies type-checked from source) and prints one JSON object a line: each function, method
// and interface method declared, and each call whose callee go/types resolves to a declared
// function or method, with the declaration it names. A package's test files are checked with it
// (external tests as their own package); their declarations are marked as test declarations.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
)

type place struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type record struct {
	T      string `json:"t"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
	Name   string `json:"name"`
	Kind   string `json:"kind,omitempty"`
	Owner  string `json:"owner,omitempty"`
	Target *place `json:"target,omitempty"`
	// Through an interface value: go/types names the interface method.
	Interface bool `json:"interface,omitempty"`
	Test      bool `json:"test,omitempty"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-calls <gopath> <import path prefix>")
		os.Exit(2)
	}
	context := build.Default
	context.GOPATH = os.Args[1]
	prefix := os.Args[2]
	base := filepath.Join(os.Args[1], "src", filepath.FromSlash(prefix))
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	out := json.NewEncoder(os.Stdout)
	emit := func(r record) { _ = out.Encode(r) }
	_ = filepath.Walk(base, func(dir string, info os.FileInfo, err error) error {
		if err != nil || !info.IsDir() {
			return nil
		}
		name := info.Name()
		if dir != base && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		pkg, err := context.ImportDir(dir, 0)
		if err != nil || len(pkg.GoFiles) == 0 {
			return nil
		}
		check(fset, imp, dir, pkg.ImportPath, append(append([]string{}, pkg.GoFiles...), pkg.TestGoFiles...), emit)
		if len(pkg.XTestGoFiles) > 0 {
			check(fset, imp, dir, pkg.ImportPath+"_test", pkg.XTestGoFiles, emit)
		}
		return nil
	})
}

func check(fset *token.FileSet, imp types.Importer, dir, path string, names []string, emit func(record)) {
	var files []*ast.File
	for _, name := range names {
		parsed, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err == nil {
			files = append(files, parsed)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	config := types.Config{Importer: imp, Error: func(error) {}}
	_, _ = config.Check(path, fset, files, info)
	for _, file := range files {
		declarations(fset, file, emit)
		calls(fset, file, info, emit)
	}
}

func declarations(fset *token.FileSet, file *ast.File, emit func(record)) {
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			at := fset.Position(d.Name.Pos())
			r := record{T: "decl", File: at.Filename, Line: at.Line, Name: d.Name.Name, Kind: "function", Test: strings.HasSuffix(at.Filename, "_test.go")}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				r.Kind = "method"
				r.Owner = receiverName(d.Recv.List[0].Type)
			}
			emit(r)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				iface, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					continue
				}
				for _, method := range iface.Methods.List {
					if _, ok := method.Type.(*ast.FuncType); !ok {
						continue
					}
					for _, name := range method.Names {
						at := fset.Position(name.Pos())
						emit(record{T: "decl", File: at.Filename, Line: at.Line, Name: name.Name, Kind: "interface_method", Owner: ts.Name.Name, Test: strings.HasSuffix(at.Filename, "_test.go")})
					}
				}
			}
		}
	}
}

func receiverName(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

func calls(fset *token.FileSet, file *ast.File, info *types.Info, emit func(record)) {
	ast.Inspect(file, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := call.Fun
		for {
			if paren, ok := fun.(*ast.ParenExpr); ok {
				fun = paren.X
			} else if index, ok := fun.(*ast.IndexExpr); ok {
				fun = index.X
			} else if list, ok := fun.(*ast.IndexListExpr); ok {
				fun = list.X
			} else {
				break
			}
		}
		var ident *ast.Ident
		switch f := fun.(type) {
		case *ast.Ident:
			ident = f
		case *ast.SelectorExpr:
			ident = f.Sel
		default:
			return true
		}
		at := fset.Position(ident.Pos())
		object := info.Uses[ident]
		fn, ok := object.(*types.Func)
		if !ok || fn.Pkg() == nil {
			// Not a declared function: a func value, a conversion or a builtin (a call of nothing drawn),
			// or, without an object, a call go/types could not check.
			r := record{T: "call", File: at.Filename, Line: at.Line, Column: at.Column, Name: ident.Name}
			if object != nil {
				r.Target = &place{File: "-", Line: 0}
			}
			emit(r)
			return true
		}
		target := fset.Position(fn.Pos())
		r := record{T: "call", File: at.Filename, Line: at.Line, Column: at.Column, Name: ident.Name, Target: &place{File: target.Filename, Line: target.Line}}
		if signature, ok := fn.Type().(*types.Signature); ok && signature.Recv() != nil {
			if types.IsInterface(signature.Recv().Type()) {
				r.Interface = true
			}
		}
		emit(r)
		return true
	})
}
