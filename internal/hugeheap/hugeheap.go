package hugeheap

// MinReserve is the least Reserve acts on: below it, the collection it
// runs costs more than the faults it saves.
const MinReserve = 16 << 20

// MaxReserve bounds a reservation: the heap range is only mapped, not
// used, but a system that does not overcommit memory counts it.
const MaxReserve = 1 << 30
