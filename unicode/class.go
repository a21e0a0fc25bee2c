package unicode

import "sort"

// The table types below are filled by the generator (tables.go). They are
// read-only after compilation: the slices are static data, so importing the
// package costs no start-up work.

type classRange32 struct {
	lo, hi uint32
	cls    class
}

type propRun struct {
	lo    uint32
	props uint16
}

type scriptRun struct {
	lo uint32
	sc uint8
}

type scxRange struct {
	lo, hi uint32
	set    uint16
}

// Script indexes with fixed positions in scriptInfo (the generator checks them).
const (
	scUnknown   = 0
	scCommon    = 1
	scInherited = 2
	scLatin     = 3
	scGreek     = 4
	scCyrillic  = 5
)

// classOf returns the hot-path class of r. Ordinary BMP text costs one bit
// test; a flagged BMP code point two more loads; only the supplementary
// planes pay for a binary search.
func classOf(r rune) class {
	if uint32(r) < 0x10000 {
		if bmpFlags[r>>6]&(1<<(uint(r)&63)) == 0 {
			return clsNone
		}
		return class(bmpBlockData[int(bmpBlockIndex[r>>6])<<6|int(r&63)])
	}
	if r < 0 {
		return clsNone
	}
	if r > 0x10FFFF {
		return clsNone
	}
	t := suppClasses
	lo, hi := 0, len(t)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if uint32(r) > t[m].hi {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t) && uint32(r) >= t[lo].lo {
		return t[lo].cls
	}
	return clsNone
}

// propsOf returns the context property bits of r (propRTL, propLetter, ...).
func propsOf(r rune) uint16 {
	if r < 0x80 {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			return propLetter | propAllowedID
		case r >= '0' && r <= '9':
			return propDigit | propEmoji | propAllowedID
		case r < 0:
			return 0
		}
	}
	if r > 0x10FFFF {
		return 0
	}
	i := sort.Search(len(propTable), func(i int) bool { return propTable[i].lo > uint32(r) }) - 1
	return propTable[i].props
}

// scriptOf returns the Script property of r as an index into scriptInfo.
func scriptOf(r rune) uint8 {
	if r < 0x80 {
		if (r|0x20) >= 'a' && (r|0x20) <= 'z' {
			return scLatin
		}
		if r < 0 {
			return scUnknown
		}
		return scCommon
	}
	if r > 0x10FFFF {
		return scUnknown
	}
	i := sort.Search(len(scriptTable), func(i int) bool { return scriptTable[i].lo > uint32(r) }) - 1
	return scriptTable[i].sc
}

// scriptExtensions returns the Script_Extensions of r as a string of
// script indexes (one byte each). For most code points it is just Script.
func scriptExtensions(r rune) string {
	if r >= 0x80 && r <= 0x10FFFF {
		i := sort.Search(len(scxTable), func(i int) bool { return scxTable[i].hi >= uint32(r) })
		if i < len(scxTable) && scxTable[i].lo <= uint32(r) {
			set := scxTable[i].set
			return scxData[scxOffsets[set]:scxOffsets[set+1]]
		}
	}
	sc := scriptOf(r)
	return scriptIndexes[sc : sc+1]
}

// hasScript reports whether the Script_Extensions of r include script sc.
func hasScript(r rune, sc uint8) bool {
	set := scriptExtensions(r)
	for i := 0; i < len(set); i++ {
		if set[i] == sc {
			return true
		}
	}
	return false
}

// ScriptName returns the Unicode long name of the script of r
// ("Latin", "Cyrillic", "Common", ...), from the Unicode 17 tables.
func ScriptName(r rune) string {
	return scriptInfo[scriptOf(r)].name
}

// isVariationSequence reports whether base followed by selector vs is a
// standardized or emoji variation sequence.
func isVariationSequence(base, vs rune) bool {
	key := uint64(base)<<32 | uint64(vs)
	i := sort.Search(len(variationSequences), func(i int) bool { return variationSequences[i] >= key })
	return i < len(variationSequences) && variationSequences[i] == key
}

// prototype returns the TR39 confusable prototype of r, if it has one.
func prototype(r rune) (string, bool) {
	i := sort.Search(len(confusableKeys), func(i int) bool { return confusableKeys[i] >= uint32(r) })
	if i < len(confusableKeys) && confusableKeys[i] == uint32(r) {
		return confusableData[confusableOffsets[i]:confusableOffsets[i+1]], true
	}
	return "", false
}
