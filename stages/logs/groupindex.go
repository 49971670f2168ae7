package logs

// hashTable numbers entries by a 64-bit hash: open addressing with
// linear probing over slots that hold an entry's number, its user
// keeping each entry's data by number. A hash picks its first slot by
// its low bits, so it must be well mixed there. Every record looks up
// its template's group and its line's digit shape in one, and a map's
// lookup cost several times this probe.
type hashTable struct {
	slots  []int32  // 1 + an entry's number, or 0; len a power of two, at most half full
	hashes []uint64 // each entry's hash, by number
}

// start returns the slot where the probe for hash h starts.
func (x *hashTable) start(h uint64) int {
	if len(x.slots) == 0 {
		x.slots = make([]int32, 64)
	}
	return int(h) & (len(x.slots) - 1)
}

// next returns the slot a probe reads after slot p. A probe reads the
// entry numbers in slots[p] - 1 until it meets -1, a free slot.
func (x *hashTable) next(p int) int { return (p + 1) & (len(x.slots) - 1) }

// add numbers a new entry of hash h, that a probe did not find, in slot
// (the free slot where the probe ended, or -1 to look for one), and
// returns its number.
func (x *hashTable) add(h uint64, slot int) int32 {
	i := int32(len(x.hashes))
	if 2*(len(x.hashes)+1) > len(x.slots) {
		x.grow()
		slot = -1
	}
	if slot < 0 {
		slot = x.free(h)
	}
	x.slots[slot] = i + 1
	x.hashes = append(x.hashes, h)
	return i
}

// grow doubles the slots, 64 at least.
func (x *hashTable) grow() {
	x.slots = make([]int32, max(64, 2*len(x.slots)))
	for i, h := range x.hashes {
		x.slots[x.free(h)] = int32(i) + 1
	}
}

// free returns the first free slot from where h hashes.
func (x *hashTable) free(h uint64) int {
	mask := len(x.slots) - 1
	p := int(h) & mask
	for x.slots[p] != 0 {
		p = (p + 1) & mask
	}
	return p
}

// reset empties x, keeping its room.
func (x *hashTable) reset() {
	if len(x.hashes) > 0 {
		clear(x.slots)
	}
	x.hashes = x.hashes[:0]
}

// groupIndex maps a template's key to its group, groups numbered in the
// order their keys are put.
type groupIndex struct{ hashTable }

// get returns the group of key.
func (x *groupIndex) get(key uint64) (int, bool) {
	// hashSlot mixes the key's bits, one to one: equal hashes are equal
	// keys.
	h := hashSlot(key)
	for p := x.start(h); ; p = x.next(p) {
		i := x.slots[p] - 1
		if i < 0 {
			return 0, false
		}
		if x.hashes[i] == h {
			return int(i), true
		}
	}
}

// put maps key, which get does not find, to group g, which must be the
// next number: the number of keys put since reset.
func (x *groupIndex) put(key uint64, g int) {
	if int(x.add(hashSlot(key), -1)) != g {
		panic("logs: groupIndex.put out of order")
	}
}
