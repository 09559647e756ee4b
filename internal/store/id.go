package store

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// idAlphabet is Crockford's base32 in lower case; its characters are in
// ASCII order, so IDs sort as their timestamps do.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// newRunID returns "r" followed by 16 base32 characters: 48 bits of unix
// milliseconds, then 32 random bits. IDs of runs created in different
// milliseconds sort by creation time.
func newRunID(now time.Time) string {
	var b [10]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	rand.Read(b[6:]) // never fails, per crypto/rand
	v := uint64(0)
	out := make([]byte, 1, 17)
	out[0] = 'r'
	// 80 bits: the first 40 then the last 40, 8 characters each.
	for _, half := range [][]byte{b[:5], b[5:]} {
		v = 0
		for _, c := range half {
			v = v<<8 | uint64(c)
		}
		for shift := 35; shift >= 0; shift -= 5 {
			out = append(out, idAlphabet[v>>uint(shift)&31])
		}
	}
	return string(out)
}
