package server

import "crypto/sha256"

// cpuBufSize is the size of the buffer the CPU work hashes, per the contract.
const cpuBufSize = 1024

// cpuWork runs the contract's CPU algorithm: a 1024-byte buffer with
// buf[i] = i mod 256, hashed work times, each SHA-256 digest copied over the
// buffer's first 32 bytes. It returns those 32 bytes.
func cpuWork(work int) [sha256.Size]byte {
	var buf [cpuBufSize]byte
	for i := range buf {
		buf[i] = byte(i)
	}
	for range work {
		d := sha256.Sum256(buf[:])
		copy(buf[:], d[:])
	}
	return [sha256.Size]byte(buf[:sha256.Size])
}
