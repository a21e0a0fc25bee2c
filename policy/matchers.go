package policy

import "strings"

// shippedMatchers answer regex.match for the patterns of the shipped
// policies that every server's evaluation tries (a package spec: is it a
// local path, an exact npm version, a pinned Python requirement), written
// by hand so that no regexp match is set up for each call. Each answers
// exactly as the compiled pattern does, for any string
// (FuzzShippedMatchers); a pattern not in the table, as in a policy edited
// since, goes to regexp.
var shippedMatchers = map[string]func(string) bool{
	`^([./~]|file:|git\+|[A-Za-z]:[\\/])`:                               localPathSpec,
	`^=?v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`: exactSemver,
	`^[^=<>!~@*\s]+\s*===?\s*[A-Za-z0-9.+!_-]+$`:                        pinnedRequirement,
	`^[^=<>!~@*\s]+@[A-Za-z0-9.+!_-]+$`:                                 pinnedAtVersion,
}

// localPathSpec: ".", "/", "~", "file:", "git+" or a drive ("C:\", "C:/")
// first.
func localPathSpec(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case c == '.' || c == '/' || c == '~':
		return true
	case strings.HasPrefix(s, "file:") || strings.HasPrefix(s, "git+"):
		return true
	default:
		return isASCIILetter(c) && len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/')
	}
}

// exactSemver: [=][v]N.N.N, then an optional -prerelease and +build of
// [0-9A-Za-z.-], and nothing else. Each part is taken whole: no class
// holds the character that ends it, so the pattern has one way to match.
func exactSemver(s string) bool {
	i := 0
	if i < len(s) && s[i] == '=' {
		i++
	}
	if i < len(s) && s[i] == 'v' {
		i++
	}
	for part := range 3 {
		if part > 0 {
			if i == len(s) || s[i] != '.' {
				return false
			}
			i++
		}
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	for _, sep := range []byte{'-', '+'} {
		if i < len(s) && s[i] == sep {
			i++
			j := i
			for i < len(s) && (isASCIILetter(s[i]) || '0' <= s[i] && s[i] <= '9' || s[i] == '.' || s[i] == '-') {
				i++
			}
			if i == j {
				return false
			}
		}
	}
	return i == len(s)
}

// pinnedRequirement: a name, then == or === between optional spaces, then
// a version.
func pinnedRequirement(s string) bool {
	i := requirementName(s)
	if i == 0 {
		return false
	}
	i = skipSpace(s, i)
	if !strings.HasPrefix(s[i:], "==") {
		return false
	}
	i += 2
	if i < len(s) && s[i] == '=' {
		i++
	}
	return versionTail(s, skipSpace(s, i))
}

// pinnedAtVersion: a name, "@", a version.
func pinnedAtVersion(s string) bool {
	i := requirementName(s)
	return i > 0 && i < len(s) && s[i] == '@' && versionTail(s, i+1)
}

// requirementName is the length of [^=<>!~@*\s]+ at the start of s: the
// class is ASCII, so any other byte, of a character of any length, is in
// it (as regexp reads an invalid byte as U+FFFD, also in it).
func requirementName(s string) int {
	i := 0
	for i < len(s) && !strings.ContainsRune("=<>!~@*", rune(s[i])) && !isRegexpSpace(s[i]) {
		i++
	}
	return i
}

// versionTail reports whether s[i:] is [A-Za-z0-9.+!_-]+ to its end.
func versionTail(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	for ; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && !strings.ContainsRune(".+!_-", rune(c)) {
			return false
		}
	}
	return true
}

// skipSpace is i past the \s characters at s[i:].
func skipSpace(s string, i int) int {
	for i < len(s) && isRegexpSpace(s[i]) {
		i++
	}
	return i
}

// isRegexpSpace is regexp's \s: tab, newline, form feed, carriage return,
// space (not vertical tab).
func isRegexpSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func isASCIILetter(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }
