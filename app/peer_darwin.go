package app

import "golang.org/x/sys/unix"

// peerUIDOf is the user id at the other end of a Unix socket (getpeereid's
// LOCAL_PEERCRED).
func peerUIDOf(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
