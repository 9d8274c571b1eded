package main

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// completionLineEnv is the variable a shell sets when it asks the binary
// to complete a command line (bash's complete -C; see registerCompletion).
const completionLineEnv = "COMP_LINE"

// parseModel returns what kong parses args into: the whole command line
// (a *cli), or, when args begin with the name of a command, a model of
// that command alone.
//
// Building kong's model is most of kcmtrace's start-up: kong reads the
// tags of every flag of every command and interpolates every help text
// (~2.2 ms and 1.2 MB of allocations for the whole command line, warm;
// 0.5 ms and 0.27 MB for analyze alone). On a cold start the allocations
// also cost their page faults and, with the package initialisers', a
// collection: `kcmtrace analyze` of a 3 KB log took 38 ms with the whole
// model and 28 ms with its command's (perf stat -r 40). A command's help,
// usage and errors read only its own node of the model and the
// application's flags, so both models say the same
// (TestCommandModelMatchesWhole).
//
// The whole model is kept where something reads all of it: no command
// first (kcmtrace --help, a flag before the command, a typo), a command
// that renders the model (completion, man: ctxCommand), and a shell's
// completion request.
func parseModel(args []string, getenv func(string) string) any {
	if len(args) > 0 && getenv(completionLineEnv) == "" {
		if t := commandModel(args[0]); t != nil {
			return reflect.New(t).Interface()
		}
	}
	return &cli{}
}

// commandModel returns the type of a struct holding cli's field of the
// command called name and cli's other fields (the application's flags),
// with their tags: a model kong reads as the whole command line with
// only that command. It returns nil when no command is called name, or
// when the command reads the whole model (ctxCommand). cli's embedded
// structs become named fields tagged embed:"" (a struct made by reflect
// cannot embed an unexported type), which kong reads the same way.
func commandModel(name string) reflect.Type {
	whole := reflect.TypeFor[cli]()
	var fields []reflect.StructField
	found := false
	for i := range whole.NumField() {
		f := whole.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd {
			if commandName(f) != name {
				continue
			}
			if reflect.PointerTo(f.Type).Implements(reflect.TypeFor[ctxCommand]()) {
				break
			}
			found = true
		}
		if f.Anonymous {
			r, n := utf8.DecodeRuneInString(f.Name)
			f.Name, f.PkgPath, f.Anonymous = string(unicode.ToUpper(r))+f.Name[n:], "", false
		}
		fields = append(fields, f)
	}
	if !found {
		return nil
	}
	return reflect.StructOf(fields) // the same type for the same fields, made once
}

// commandName is the name kong gives the command of field f: its name
// tag, or its field name in lower case with a hyphen before each inner
// capital (Analyze → analyze).
func commandName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	var b strings.Builder
	for i, r := range f.Name {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// modelGlobals returns the application's flags of a model parseModel
// returned, once kong has filled it.
func modelGlobals(model any) profileFlags {
	if c, ok := model.(*cli); ok {
		return c.profileFlags
	}
	return reflect.ValueOf(model).Elem().FieldByName("ProfileFlags").Interface().(profileFlags)
}
