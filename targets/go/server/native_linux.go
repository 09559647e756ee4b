package server

import (
	"syscall"
	"time"
	"unsafe"
)

// nativeSleep blocks the calling OS thread in a raw nanosleep system call.
// Unlike time.Sleep, which parks only the goroutine, this holds the thread:
// syscall.Syscall enters the runtime's syscall state, and sysmon hands the
// thread's P to another thread once the call lasts long enough. That is the
// Go counterpart of a Java FFM downcall pinning a carrier thread.
func nativeSleep(d time.Duration) {
	req := syscall.NsecToTimespec(d.Nanoseconds())
	for {
		var rem syscall.Timespec
		_, _, errno := syscall.Syscall(syscall.SYS_NANOSLEEP,
			uintptr(unsafe.Pointer(&req)), uintptr(unsafe.Pointer(&rem)), 0)
		// The runtime preempts with signals (SIGURG), which interrupt the
		// call; sleep on for the time that remained.
		if errno != syscall.EINTR {
			return
		}
		req = rem
	}
}
