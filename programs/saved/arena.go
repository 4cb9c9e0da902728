package saved

// arena keeps copies of lines in large shared blocks: the loader keeps
// every line of the file until the content hashes are computed, and one
// allocation a line (slices.Clone) was a tenth of a shard's CPU at 64
// shards of 100,000 runs (README "Performance"). The zero arena is ready.
type arena struct {
	block []byte // the free tail of the current block
}

// arenaBlock is the size of a block; a line longer than a quarter of it
// gets an allocation of its own, so at most a quarter of a block is
// wasted at its end.
const arenaBlock = 1 << 20

// copy returns a copy of b that stays valid as long as the arena's
// copies are referenced; never nil (the loader tells a line seen from
// none by nil).
func (a *arena) copy(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > arenaBlock/4 {
		return append(make([]byte, 0, len(b)), b...)
	}
	if len(a.block) < len(b) {
		a.block = make([]byte, arenaBlock)
	}
	c := a.block[:len(b):len(b)]
	copy(c, b)
	a.block = a.block[len(b):]
	return c
}
