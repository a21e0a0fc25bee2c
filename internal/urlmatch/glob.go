package urlmatch

import "strings"

// Glob reports whether str matches pat, where "*" in pat matches any run of
// characters (including the empty run and every character: ".", "/", "?",
// ":", "@", ...) and everything else is literal and case-sensitive. The match
// is anchored at both ends. This is Claude Code's wildcard matcher.
//
// The literal pieces between stars are matched leftmost-first, which is
// exact for a pattern language whose only metacharacter is "*" and runs in
// O(len(pat) + len(str)·pieces) time at worst; there is no backtracking.
func Glob(pat, str string) bool {
	star := strings.IndexByte(pat, '*')
	if star < 0 {
		return pat == str
	}
	last := strings.LastIndexByte(pat, '*')
	prefix, suffix := pat[:star], pat[last+1:]
	if len(str) < len(prefix)+len(suffix) || !strings.HasPrefix(str, prefix) || !strings.HasSuffix(str, suffix) {
		return false
	}
	// The middle pieces must appear in order inside str[start:end].
	start, end := len(prefix), len(str)-len(suffix)
	middle := pat[star+1 : last+1]
	for middle != "" {
		i := strings.IndexByte(middle, '*')
		piece := middle[:i]
		middle = middle[i+1:]
		if piece == "" {
			continue
		}
		j := strings.Index(str[start:end], piece)
		if j < 0 {
			return false
		}
		start += j + len(piece)
	}
	return true
}

// segGlob is Claude Code's fallback for patterns that do not parse as a URL:
// pat and str are split on "/", the segment counts must be equal, and each
// pattern segment is a [Glob] against the segment at the same position (so
// "*" cannot cross "/" here).
func segGlob(pat, str string) bool {
	for {
		i := strings.IndexByte(pat, '/')
		j := strings.IndexByte(str, '/')
		if (i < 0) != (j < 0) {
			return false
		}
		if i < 0 {
			return Glob(pat, str)
		}
		if !Glob(pat[:i], str[:j]) {
			return false
		}
		pat, str = pat[i+1:], str[j+1:]
	}
}
