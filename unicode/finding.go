package unicode

// Rule ids of SPEC §6 that this package reports.
const (
	RuleTags               = "MCPG-U001" // Unicode tag characters (hidden ASCII)
	RuleBidi               = "MCPG-U002" // bidi overrides, embeddings, isolates
	RuleInvisible          = "MCPG-U003" // zero-width and other invisible characters
	RuleVariationSelectors = "MCPG-U004" // data encoded in variation selectors
	RuleControl            = "MCPG-U005" // control characters and terminal escape sequences
	RuleConfusable         = "MCPG-U006" // confusable, mixed-script or NFKC-compatibility text
	RuleUnassigned         = "MCPG-U007" // private-use, unassigned, noncharacters, invalid text
	// RuleHiddenInstructions is used only for duplicate JSON object keys, a
	// parser differential that threats.md ("Catalog gaps") files under
	// T001 with evidence.kind "duplicate-key".
	RuleHiddenInstructions = "MCPG-T001"
)

// Severities, as in SPEC §6 and the report schema.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityNote    = "note"
)

// Finding kinds: the finer class of a finding, also stored as
// Evidence["kind"]. A report consumer can filter on them (for example a
// policy that tolerates KindLineSeparator).
const (
	KindTag               = "tag"                         // U001
	KindBidiControl       = "bidi-control"                // U002
	KindBidiMark          = "bidi-mark"                   // U003: LRM, RLM, ALM outside RTL text
	KindZeroWidth         = "zero-width"                  // U003: ZWSP, ZWNJ, ZWJ, WJ, BOM, MVS out of context
	KindInvisibleOperator = "invisible-operator"          // U003: U+2061..2064
	KindSoftHyphen        = "soft-hyphen"                 // U003
	KindCGJ               = "combining-grapheme-joiner"   // U003
	KindHangulFiller      = "hangul-filler"               // U003
	KindIgnorable         = "ignorable"                   // U003: other default-ignorables and format controls
	KindBlank             = "blank"                       // U003: Braille blank, object replacement
	KindInterlinear       = "interlinear-annotation"      // U003
	KindVariationSelector = "variation-selector"          // U003: one stray selector
	KindBinary            = "binary"                      // U003: two invisible symbols encoding bits
	KindVariationEncoding = "variation-selector-encoding" // U004
	KindEscapeSequence    = "escape-sequence"             // U005: ECMA-48 sequence
	KindControl           = "control"                     // U005: lone C0/C1 control
	KindOverwrite         = "overwrite"                   // U005: CR without LF, backspace
	KindLineSeparator     = "line-separator"              // U005: LS, PS, NEL
	KindMixedScript       = "mixed-script"                // U006
	KindWholeScript       = "whole-script-confusable"     // U006
	KindCompatibility     = "compatibility"               // U006
	KindPrivateUse        = "private-use"                 // U007
	KindUnassigned        = "unassigned"                  // U007
	KindNoncharacter      = "noncharacter"                // U007
	KindInvalidUTF8       = "invalid-utf8"                // U007
	KindLoneSurrogate     = "lone-surrogate"              // U007
	KindDuplicateKey      = "duplicate-key"               // T001 (ScanJSON only)
)

const (
	// maxFindingsPerString caps the findings of one string; the last one
	// counts the rest in Evidence["omitted_findings"].
	maxFindingsPerString = 64
	// maxDecodedEvidenceBytes caps Evidence["decoded"] (threats.md §0 rule 2).
	maxDecodedEvidenceBytes = 4096
)

// Finding is one hidden-Unicode problem in a string or JSON document. It is
// shaped so that the scanner and policy packages can turn it into a report
// finding (SPEC §5) without knowing this package's internals.
type Finding struct {
	// Rule is the rule id (RuleTags, ...); Severity its default severity.
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	// Kind is the finer class (KindTag, ...).
	Kind string `json:"kind"`
	// Message is a short human-readable description.
	Message string `json:"message"`
	// Pointer is the RFC 6901 JSON pointer of the string value or object
	// key that holds the problem (ScanJSON only). For a key it points at
	// the member, and IsKey is true. Keys appear exactly, so a pointer may
	// itself contain the hidden characters; renderers must escape it.
	Pointer string `json:"pointer,omitempty"`
	IsKey   bool   `json:"is_key,omitempty"`
	// Offset and Length locate the offending code points in the scanned
	// input: bytes of the JSON document for ScanJSON (pointing into escape
	// sequences as written), bytes of the string for ScanString.
	Offset int `json:"offset"`
	Length int `json:"length"`
	// StringOffset is the byte offset of the first offending code point in
	// the decoded string value (equal to Offset for ScanString). A caller
	// can compare it with a truncation limit, e.g. Claude Code's 2 KB cut.
	StringOffset int `json:"string_offset"`
	// CodePoints lists the distinct offending code points in order of
	// first appearance ("U+E0041"; "0xFF" for an invalid UTF-8 byte),
	// at most 16. Count is the total number of offending code points.
	CodePoints []string `json:"code_points,omitempty"`
	Count      int      `json:"count"`
	// Evidence holds details for the report's evidence object. Keys:
	//   kind               same as Kind
	//   decoded            hidden text recovered from tags, variation
	//                      selectors or a binary run (at most 4 KB)
	//   decoded_truncated  true when decoded was cut
	//   decoded_hex        the decoded bytes in hex when they are not UTF-8
	//   encoding           "tags", "variation-selectors" or "binary"
	//   runs               tags: number of separate tag runs
	//   bytes, base        variation selectors: payload length, base character
	//   bits               the bit assignment of a binary run
	//   intent             what a terminal does with an escape sequence
	//   sequence           the escape sequence, escaped for display
	//   logical, visual    bidi text in memory order and as displayed
	//   token, scripts, skeleton, nfkc  details of a U006 word
	//   annotation         text inside interlinear annotation controls
	//   first_offset       duplicate keys: offset of the first key
	//   after_sanitize     duplicate keys: equal only once hidden
	//                      characters are removed
	//   omitted_findings   findings dropped after the per-string (64) or
	//                      per-document (Scanner.MaxFindings) cap
	Evidence map[string]any `json:"evidence,omitempty"`
}

// Decoded returns the hidden text decoded from tag characters, variation
// selectors or a binary run (Evidence["decoded"]), and whether there was
// any. Callers run their hidden-instruction heuristics (T001) on it.
func (f Finding) Decoded() (string, bool) {
	s, ok := f.Evidence["decoded"].(string)
	return s, ok && s != ""
}

// kindID indexes kindInfo; it is the per-code-point mark of the analyzer.
type kindID uint8

const (
	kNone kindID = iota
	kTag
	kBidiControl
	kBidiMark
	kZeroWidth
	kInvisibleOp
	kSoftHyphen
	kCGJ
	kHangulFiller
	kIgnorable
	kBlank
	kInterlinear
	kStrayVS
	kBinary
	kVSEncoding
	kEscape
	kControl
	kOverwrite
	kLineSep
	kMixedScript
	kWholeScript
	kCompat
	kPrivateUse
	kUnassigned
	kNoncharacter
	kInvalidUTF8
	kLoneSurrogate
	kDuplicateKey
)

var kindInfo = [...]struct {
	rule, severity, name, what string
}{
	kNone:         {},
	kTag:          {RuleTags, SeverityError, KindTag, "Unicode tag characters hide ASCII text"},
	kBidiControl:  {RuleBidi, SeverityError, KindBidiControl, "bidi control characters reorder the displayed text"},
	kBidiMark:     {RuleInvisible, SeverityWarning, KindBidiMark, "bidi marks outside right-to-left text"},
	kZeroWidth:    {RuleInvisible, SeverityWarning, KindZeroWidth, "zero-width characters"},
	kInvisibleOp:  {RuleInvisible, SeverityWarning, KindInvisibleOperator, "invisible math operators"},
	kSoftHyphen:   {RuleInvisible, SeverityWarning, KindSoftHyphen, "soft hyphens"},
	kCGJ:          {RuleInvisible, SeverityWarning, KindCGJ, "combining grapheme joiners"},
	kHangulFiller: {RuleInvisible, SeverityWarning, KindHangulFiller, "Hangul fillers outside Korean jamo"},
	kIgnorable:    {RuleInvisible, SeverityWarning, KindIgnorable, "invisible format characters"},
	kBlank:        {RuleInvisible, SeverityWarning, KindBlank, "characters that render blank"},
	kInterlinear:  {RuleInvisible, SeverityWarning, KindInterlinear, "interlinear annotation controls"},
	kStrayVS:      {RuleInvisible, SeverityWarning, KindVariationSelector, "variation selector without a valid base"},
	kBinary:       {RuleInvisible, SeverityWarning, KindBinary, "invisible characters encode hidden bits"},
	kVSEncoding:   {RuleVariationSelectors, SeverityError, KindVariationEncoding, "variation selectors encode hidden bytes"},
	kEscape:       {RuleControl, SeverityError, KindEscapeSequence, "terminal escape sequence"},
	kControl:      {RuleControl, SeverityError, KindControl, "control characters"},
	kOverwrite:    {RuleControl, SeverityError, KindOverwrite, "carriage return or backspace can overwrite displayed text"},
	kLineSep:      {RuleControl, SeverityError, KindLineSeparator, "line separators break line-based framing"},
	kMixedScript:  {RuleConfusable, SeverityWarning, KindMixedScript, "word mixes Latin with Cyrillic or Greek letters"},
	kWholeScript:  {RuleConfusable, SeverityWarning, KindWholeScript, "word in Cyrillic or Greek letters that looks Latin"},
	kCompat:       {RuleConfusable, SeverityWarning, KindCompatibility, "compatibility characters that normalize to ASCII"},
	kPrivateUse:   {RuleUnassigned, SeverityNote, KindPrivateUse, "private-use code points"},
	kUnassigned:   {RuleUnassigned, SeverityNote, KindUnassigned, "code points unassigned in Unicode " + Version},
	kNoncharacter: {RuleUnassigned, SeverityNote, KindNoncharacter, "noncharacters"},
	kInvalidUTF8:  {RuleUnassigned, SeverityNote, KindInvalidUTF8, "invalid UTF-8"},
	kLoneSurrogate: {RuleUnassigned, SeverityNote, KindLoneSurrogate,
		"lone UTF-16 surrogate escapes"},
	kDuplicateKey: {RuleHiddenInstructions, SeverityError, KindDuplicateKey, "duplicate object key"},
}
