package scanner

import (
	"regexp/syntax"
	"strings"
)

// Go's regexp scans unanchored patterns at a few MB/s, too slow for the
// dozens of phrase patterns over a large tools/list. Each pattern gets a
// prefilter: a set of literals one of which every match contains
// (requiredLiterals), checked with strings.Contains before the regexp
// runs. Most texts contain none of a pattern's literals.

// requiredLiterals returns literals one of which every match of expr
// contains, or nil when no such set is known.
func requiredLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	set := literalSet(re.Simplify())
	for _, s := range set {
		if s == "" {
			return nil
		}
	}
	return set
}

func literalSet(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return []string{strings.ToLower(string(re.Rune))}
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return literalSet(re.Sub[0])
	case syntax.OpPlus:
		return literalSet(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalSet(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		// The child whose shortest literal is longest filters best.
		var best []string
		bestLen := 0
		for _, s := range re.Sub {
			set := literalSet(s)
			if set == nil {
				continue
			}
			min := len(set[0])
			for _, x := range set {
				if len(x) < min {
					min = len(x)
				}
			}
			if min > bestLen {
				best, bestLen = set, min
			}
		}
		return best
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			set := literalSet(s)
			if set == nil {
				return nil
			}
			out = append(out, set...)
		}
		return out
	}
	return nil
}

// mayMatch reports whether text contains one of lits (nil lits: unknown,
// so maybe).
func mayMatch(text string, lits []string) bool {
	if lits == nil {
		return true
	}
	for _, l := range lits {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}
