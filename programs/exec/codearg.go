package execinspector

import (
	"path/filepath"
	"strings"
)

// codeFlags are, per program, the options after which the next argument
// is code the program runs: a shell's -c (alone or in a group such as
// -ec or -lc), an interpreter's -c or -e.
var codeFlags = map[string]func(opt string) bool{
	"sh": shellC, "bash": shellC, "dash": shellC, "zsh": shellC, "ksh": shellC, "mksh": shellC, "ash": shellC,
	"busybox": shellC, "yash": shellC, "posh": shellC,
	"python": is("-c"), "python3": is("-c"), "python2": is("-c"), "pypy3": is("-c"),
	"perl": is("-e", "-E"), "ruby": is("-e"), "node": is("-e", "--eval", "-p", "--print"),
}

func shellC(opt string) bool {
	return len(opt) > 1 && opt[0] == '-' && opt[1] != '-' && strings.Contains(opt[1:], "c")
}

func is(names ...string) func(string) bool {
	return func(opt string) bool {
		for _, n := range names {
			if opt == n {
				return true
			}
		}
		return false
	}
}

// codeArgument returns the index of the argument of args that a shell or
// an interpreter runs as code (the script of `sh -c SCRIPT`, `python3 -c
// CODE`), or -1. The program is args[0], or the program `env` or
// `busybox` starts (env's NAME=value and options skipped).
func codeArgument(args []string) int {
	start := 0
	for start < len(args) {
		base := filepath.Base(args[start])
		if base != "env" {
			break
		}
		start++
		for start < len(args) && (strings.HasPrefix(args[start], "-") || strings.Contains(args[start], "=")) {
			start++
		}
	}
	if start >= len(args) {
		return -1
	}
	flag, ok := codeFlags[filepath.Base(args[start])]
	if !ok {
		return -1
	}
	i := start + 1
	if filepath.Base(args[start]) == "busybox" && i < len(args) {
		i++ // busybox sh -c
	}
	code := false
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
			code = code || flag(a)
			continue
		}
		if code {
			return i
		}
		return -1 // a script file: its arguments are data
	}
	return -1
}

// shellSafe reports whether s needs no quoting in a shell or in any of
// the interpreters' code: only [A-Za-z0-9_./@%+=:,-].
func shellSafe(s string) bool {
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("_./@%+=:,-", c) >= 0:
		default:
			return false
		}
	}
	return true
}
