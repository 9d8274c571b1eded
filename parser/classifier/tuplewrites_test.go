package classifier_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestNoWritesThroughSharedTuples: an Event's names live in tuples that
// the parser shares between events (Ident, Place, Cause: interned per
// input), so `ev.Node = n` would compile and silently rename the node of
// every event sharing the tuple. Writes go through a Draft or the
// copy-on-write setters (SetVolume, SetNode, SetPod). This test type-checks
// the whole module, tests included, and fails on any assignment, ++/--, or
// address taken of a tuple field reached through an Event, or of a field of
// a tuple outside the few places that build new tuples.
func TestNoWritesThroughSharedTuples(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Tests: true,
		Dir:   "../..",
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	// the files that make tuples of their own (never shared yet)
	builders := []string{"parser/classifier/event.go", "parser/textstore/", "parser/store.go"}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Pos()).Filename
			builder := false
			for _, b := range builders {
				builder = builder || strings.Contains(name, b)
			}
			check := func(x ast.Expr, what string) {
				se, ok := ast.Unparen(x).(*ast.SelectorExpr)
				if !ok {
					return
				}
				sel := p.TypesInfo.Selections[se]
				if sel == nil || sel.Kind() != types.FieldVal || !isTupleField(sel.Obj()) {
					return
				}
				// through an Event (a promoted field) anywhere; directly on
				// a tuple only outside the builders
				if isNamed(sel.Recv(), "Event") || !builder {
					pos := p.Fset.Position(se.Pos()).String()
					if !seen[pos] {
						seen[pos] = true
						t.Errorf("%s: %s of %s writes into a tuple other events may share: use a Draft or a setter (SetVolume, SetNode, SetPod)", pos, what, se.Sel.Name)
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for _, l := range n.Lhs {
						check(l, "an assignment")
					}
				case *ast.IncDecStmt:
					check(n.X, "++/--")
				case *ast.UnaryExpr:
					if n.Op == token.AND {
						check(n.X, "the address")
					}
				}
				return true
			})
		}
	}
}

// isTupleField: v is a field of classifier.Ident, Place or Cause.
func isTupleField(o types.Object) bool {
	v, ok := o.(*types.Var)
	if !ok || !v.IsField() || v.Pkg() == nil || !strings.HasSuffix(v.Pkg().Path(), "parser/classifier") {
		return false
	}
	for _, tuple := range []string{"Ident", "Place", "Cause"} {
		obj := v.Pkg().Scope().Lookup(tuple)
		if obj == nil {
			continue
		}
		if st, ok := obj.Type().Underlying().(*types.Struct); ok {
			for i := range st.NumFields() {
				if st.Field(i) == v {
					return true
				}
			}
		}
	}
	return false
}

// isNamed: t is (a pointer to) the classifier's type called name.
func isNamed(t types.Type, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && strings.HasSuffix(n.Obj().Pkg().Path(), "parser/classifier") && n.Obj().Name() == name
}
