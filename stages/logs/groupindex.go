package logs

// groupIndex maps a template's key to its group: open addressing with
// linear probing over one array of entries. Every record looks its key
// up, and a map's lookup cost several times this probe.
type groupIndex struct {
	entries []indexEntry // len a power of two, at most half full
	n       int
}

// indexEntry is one slot: group+1, 0 when the slot is empty.
type indexEntry struct {
	key   uint64
	group int32
}

// get returns the group of key.
func (x *groupIndex) get(key uint64) (int, bool) {
	if len(x.entries) == 0 {
		return 0, false
	}
	mask := uint64(len(x.entries) - 1)
	for i := hashSlot(key) & mask; ; i = (i + 1) & mask {
		e := &x.entries[i]
		if e.group == 0 {
			return 0, false
		}
		if e.key == key {
			return int(e.group) - 1, true
		}
	}
}

// put maps key, which get does not find, to group g.
func (x *groupIndex) put(key uint64, g int) {
	if 2*(x.n+1) > len(x.entries) {
		x.grow()
	}
	x.place(key, int32(g)+1)
	x.n++
}

// place stores an entry in the first free slot of its probe.
func (x *groupIndex) place(key uint64, group int32) {
	mask := uint64(len(x.entries) - 1)
	i := hashSlot(key) & mask
	for x.entries[i].group != 0 {
		i = (i + 1) & mask
	}
	x.entries[i] = indexEntry{key: key, group: group}
}

func (x *groupIndex) grow() {
	old := x.entries
	x.entries = make([]indexEntry, max(64, 2*len(old)))
	for _, e := range old {
		if e.group != 0 {
			x.place(e.key, e.group)
		}
	}
}

// reset empties the index, keeping its room.
func (x *groupIndex) reset() {
	if x.n > 0 {
		clear(x.entries)
	}
	x.n = 0
}
