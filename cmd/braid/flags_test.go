package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// Flags may come before, between and after the positional arguments;
// after "--" everything is positional.
func TestParseInterspersed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		dir  string
		json bool
		want []string
	}{
		{[]string{"-d", "out", "a", "b"}, "out", false, []string{"a", "b"}},
		{[]string{"a", "-d", "out", "b", "--json"}, "out", true, []string{"a", "b"}},
		{[]string{"a", "b", "-d", "out"}, "out", false, []string{"a", "b"}},
		{[]string{"-d", "out", "--", "-x", "--json"}, "out", false, []string{"-x", "--json"}},
		{[]string{"a", "--", "-d", "b"}, "", false, []string{"a", "-d", "b"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		dir := fs.String("d", "", "")
		asJSON := fs.Bool("json", false, "")
		got, code, ok := parseInterspersed(fs, tc.args)
		if !ok || code != 0 || !slices.Equal(got, tc.want) || *dir != tc.dir || *asJSON != tc.json {
			t.Errorf("%q: positional %q (ok %v, code %d), -d %q, --json %v; want %q, -d %q, --json %v",
				tc.args, got, ok, code, *dir, *asJSON, tc.want, tc.dir, tc.json)
		}
	}
}
