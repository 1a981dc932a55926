package runner

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// refuseSockets installs a seccomp filter on this thread (inherited by
// Python) that makes socket(2) fail with EACCES for every family but Unix
// sockets, and refuses io_uring, which could open sockets without socket(2).
// It is the network barrier where no network namespace can be had.
func refuseSockets() error {
	var arch uint32
	var nrSocket, nrIOUring uint32
	switch runtime.GOARCH {
	case "amd64":
		arch, nrSocket, nrIOUring = 0xc000003e, 41, 425 // AUDIT_ARCH_X86_64
	case "arm64":
		arch, nrSocket, nrIOUring = 0xc00000b7, 198, 425 // AUDIT_ARCH_AARCH64
	default:
		return fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	const (
		ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret    = unix.BPF_RET | unix.BPF_K
		allow  = unix.SECCOMP_RET_ALLOW
		eacces = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
		kill   = unix.SECCOMP_RET_KILL_PROCESS
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
		offArg0 = 16 // args[0], low 32 bits on little-endian
	)
	prog := []unix.SockFilter{
		{Code: ldAbs, K: offArch},
		{Code: jeq, Jt: 1, Jf: 0, K: arch},
		{Code: ret, K: kill}, // another ABI than ours: refuse outright
		{Code: ldAbs, K: offNr},
		{Code: jge, Jt: 0, Jf: 1, K: 0x40000000}, // x32 system calls
		{Code: ret, K: eacces},
		{Code: jeq, Jt: 0, Jf: 1, K: nrIOUring},
		{Code: ret, K: eacces},
		{Code: jeq, Jt: 0, Jf: 3, K: nrSocket},
		{Code: ldAbs, K: offArg0},
		{Code: jeq, Jt: 1, Jf: 0, K: unix.AF_UNIX},
		{Code: ret, K: eacces},
		{Code: ret, K: allow},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return err
	}
	return nil
}
