// Package jsonquote writes a string as encoding/json quotes it, without
// reflection or an encoder: the hand-written JSON of reports and fleet
// merges, and the policy input's command-line keys.
package jsonquote
