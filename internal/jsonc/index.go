package jsonc

import "hash/maphash"

// indexFrom is how many members an object has before objectMembers finds
// them by key through a memberIndex instead of comparing each.
const indexFrom = 8

// memberIndex finds an object's members by key, for the duplicate check of
// a large object (a server list: hundreds of names): open addressing over
// the members' positions, cheaper than a Go map's inserts and lookups
// for a check that runs on every large object. The keys are hashed with
// maphash under a seed made per parse, as Go's maps are, so that no
// document can make its keys collide.
type memberIndex struct {
	slots []int32 // a member's position + 1; 0 is an empty slot
	n     int
}

// build indexes members, whose keys are distinct.
func (x *memberIndex) build(seed maphash.Seed, members []Member) {
	size := 32
	for size < 4*len(members) {
		size *= 2
	}
	x.slots, x.n = make([]int32, size), 0
	for i := range members {
		x.insert(seed, members[i].Key, i)
	}
}

// find returns the position of the member named key, or -1.
func (x *memberIndex) find(seed maphash.Seed, members []Member, key string) int {
	mask := len(x.slots) - 1
	for i := int(maphash.String(seed, key)) & mask; ; i = (i + 1) & mask {
		pos := x.slots[i]
		if pos == 0 {
			return -1
		}
		if members[pos-1].Key == key {
			return int(pos - 1)
		}
	}
}

// add indexes the last of members, whose key no other has.
func (x *memberIndex) add(seed maphash.Seed, members []Member) {
	if 2*(x.n+1) > len(x.slots) {
		x.build(seed, members)
		return
	}
	x.insert(seed, members[len(members)-1].Key, len(members)-1)
}

func (x *memberIndex) insert(seed maphash.Seed, key string, pos int) {
	mask := len(x.slots) - 1
	i := int(maphash.String(seed, key)) & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = int32(pos + 1)
	x.n++
}
