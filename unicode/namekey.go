package unicode

// NameKeys returns the keys under which two identifiers (tool names) read
// as one: equal names have equal keys, and so do names that differ only in
// compatibility forms (fullwidth "ｒｅａｄ", mathematical "𝗿𝗲𝗮𝗱"), case,
// default-ignorable code points, or characters that UTS #39's
// confusables.txt gives the same prototype (a Cyrillic "а" for a Latin
// "a", "rn" for "m"). Two names read as one when either of their keys is
// equal.
//
// Two keys, because folding case and taking skeletons do not commute:
// folded (NFKC, case folding, then the skeleton, folded again) finds
// "READ_FILE" for "read_file" and a Cyrillic "о" for "o"; shaped (the
// skeleton first, then folded) finds "Iist_files" (a capital I) for
// "list_files", which folding first turns into "iist_files". Like
// skeletons, keys are for comparison only: never show or forward them.
func NameKeys(s string) (folded, shaped string) {
	if isPrintableASCII(s) && nameASCIIInert(s) {
		k := Analysis(s)
		return k, k
	}
	return Analysis(Skeleton(Analysis(s))), Analysis(Skeleton(s))
}

// nameASCIIInert reports a printable ASCII name whose lower-case form is
// its skeleton, so both keys are that: no upper-case letter (the capital
// I is confusable with l) and no character that confusables.txt maps
// (digits 0 and 1, m, and the punctuation with prototypes).
func nameASCIIInert(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			if c == 'm' {
				return false
			}
		case '2' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}
