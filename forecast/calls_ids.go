package forecast

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
)

// callKey is a 96-bit fingerprint of a call's (agent, id): the first 12
// bytes of SHA-256(uvarint(len(agent)) agent id).
type callKey struct {
	h     uint64 // bytes 0-7
	check uint32 // bytes 8-11
}

// keyOfCall returns the fingerprint of (agent, id), using buf as scratch
// space (returned for reuse).
func keyOfCall(buf []byte, agent, id string) (callKey, []byte) {
	buf = binary.AppendUvarint(buf[:0], uint64(len(agent)))
	buf = append(buf, agent...)
	buf = append(buf, id...)
	sum := sha256.Sum256(buf)
	return callKey{h: binary.LittleEndian.Uint64(sum[:8]), check: binary.LittleEndian.Uint32(sum[8:12])}, buf
}

// callIDSet remembers the (agent, id) pairs seen and the line each was
// first seen on, for the repeated-id check of ResolveCalls, without
// keeping the ids: an entry is a 96-bit fingerprint and a 32-bit line
// number in 16 bytes (about 38 bytes a pair with the map's load and
// overhead, measured at a million pairs, against 80 to 125 for the map
// of id strings it replaces).
//
// The trade-off: two different pairs with the same fingerprint would be
// taken for a repeat. For n distinct pairs that happens with probability
// below n^2 / 2^97 (6e-18 at a million calls, 6e-16 at ten million), and
// as the fingerprint is a cryptographic hash it cannot be steered
// short of about 2^48 hash evaluations; a line so rejected is still
// reported, naming the line it was taken to repeat. A first line number
// above 2^32 - 1 is not kept ("first seen on an earlier line").
type callIDSet struct {
	m map[uint64]uint64 // h -> check<<32 | line
	// more holds the pairs whose first 64 bits collide with an earlier
	// pair's but whose next 32 do not.
	more map[callKey]int
}

func newCallIDSet() callIDSet { return callIDSet{m: map[uint64]uint64{}} }

// add records k first seen on line; when k was seen before it returns
// the line it was first seen on (0 if unknown) and true.
func (s *callIDSet) add(k callKey, line int) (first int, seen bool) {
	var l uint64
	if line > 0 && line <= math.MaxUint32 {
		l = uint64(line)
	}
	v, ok := s.m[k.h]
	if !ok {
		s.m[k.h] = uint64(k.check)<<32 | l
		return 0, false
	}
	if uint32(v>>32) == k.check {
		return int(uint32(v)), true
	}
	if f, ok := s.more[k]; ok {
		return f, true
	}
	if s.more == nil {
		s.more = map[callKey]int{}
	}
	s.more[k] = line
	return 0, false
}
