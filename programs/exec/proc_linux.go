package execinspector

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What the reaper reads of /proc, and how much at most: the files are the
// kernel's, but a process controls its own environment and descriptors.
const (
	// maxEnviron bounds the environment read for a call marker; the
	// kernel allows a few MB of arguments and environment in all.
	maxEnviron = 4 << 20
	// maxDescriptors bounds the descriptors of one process looked at for
	// a call's pipes.
	maxDescriptors = 4096
	// maxChildrenList bounds one /proc/PID/task/TID/children file.
	maxChildrenList = 1 << 20
)

// procState is what the reaper needs of /proc/PID/stat.
type procState struct {
	state byte // R, S, D, Z, T, ...
	ppid  int
	pgid  int
	// noImage is true when the line shows env_end (field 51, Linux 3.5
	// and later) as 0 for a live process: it has no memory image at that
	// moment, because it is between two in execve or is exiting and has
	// let go of its memory. The kernel also shows 0 to a reader not
	// allowed to see the field; the reaper tells that case apart by
	// reading the environment (see betweenImages).
	noImage bool
}

// envEndField is the index of env_end, field 51 of /proc/PID/stat, among
// the fields after the command name (index 0 is field 3, the state).
const envEndField = 51 - 3

// readStat reads /proc/PID/stat.
func readStat(pid int) (procState, error) {
	b, err := readLimited("/proc/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return procState{}, err
	}
	return parseStat(string(b))
}

// parseStat parses the text of /proc/PID/stat, "PID (COMM) STATE PPID
// PGRP ...": the fields after the command name, which is in parentheses
// and may itself hold spaces and parentheses (so the last ')' ends it).
// Text of another shape (fewer than three fields after the name, a
// state that is not one ASCII letter, a pid that is not a number) is
// fs.ErrInvalid.
func parseStat(s string) (procState, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procState{}, fs.ErrInvalid
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) != 1 || f[0][0] < 'A' || f[0][0] > 'z' || f[0][0] > 'Z' && f[0][0] < 'a' {
		return procState{}, fs.ErrInvalid // the state is one letter
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err := errors.Join(err1, err2); err != nil {
		return procState{}, fs.ErrInvalid
	}
	st := procState{state: f[0][0], ppid: ppid, pgid: pgid}
	if len(f) > envEndField && f[envEndField] == "0" && st.state != 'Z' && st.state != 'X' {
		st.noImage = true
	}
	return st, nil
}

// betweenImages reports whether the live process pid, whose stat line
// showed no memory image (st.noImage), really has none. Such a process is
// in execve, where its environment reads empty, or exiting, where it
// cannot be read at all (ESRCH: no memory; ENOENT: gone since). A process
// whose environment the reaper may not read (another user's) is not
// between images: its stat line hides env_end from the reaper.
func betweenImages(pid int, st procState) bool {
	if !st.noImage {
		return false
	}
	b, err := readPrefix("/proc/"+strconv.Itoa(pid)+"/environ", 1)
	if err != nil {
		return !errors.Is(err, fs.ErrPermission)
	}
	return len(b) == 0
}

// childrenOfSelf lists this process's children, live or zombie, from
// /proc/self/task/*/children (a child belongs to the thread that forked
// it). Without that file (a kernel built without CONFIG_PROC_CHILDREN)
// it scans every /proc/PID/stat.
func childrenOfSelf() ([]int, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		kids, err := childrenOfThread(tid)
		if errors.Is(err, fs.ErrNotExist) {
			if _, terr := os.Stat("/proc/self/task/" + t.Name()); terr == nil {
				return scanChildren(os.Getpid())
			}
			continue // the thread is gone
		}
		if err != nil {
			return nil, err
		}
		out = append(out, kids...)
	}
	return out, nil
}

// childrenOfThread lists the children of thread tid of this process from
// /proc/self/task/TID/children, in three system calls.
func childrenOfThread(tid int) ([]int, error) {
	b, err := readLimited("/proc/self/task/"+strconv.Itoa(tid)+"/children", maxChildrenList)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// scanChildren lists the processes whose parent is pid by reading every
// /proc/PID/stat.
func scanChildren(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if st, err := readStat(p); err == nil && st.ppid == pid {
			out = append(out, p)
		}
	}
	return out, nil
}

// killMarked kills every process (other than this one) whose call
// marker starts with prefix, with the process group it leads, looking
// again while the last look found one (its children may carry the marker
// too), at most 5 times 10 ms apart. It scans all of /proc: it runs only
// when a reaper ended without cleaning up.
func killMarked(prefix string) {
	self := os.Getpid()
	for range 5 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			if v, ok := environValue(pid, callMarker); ok && strings.HasPrefix(v, prefix) {
				killProcessAndGroup(pid)
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// environValue returns the value of name in the environment pid was
// started with (/proc/PID/environ, at most maxEnviron bytes; a process
// may overwrite that memory, so this is a hint, not a proof).
func environValue(pid int, name string) (string, bool) {
	b, err := readPrefix("/proc/"+strconv.Itoa(pid)+"/environ", maxEnviron)
	if err != nil {
		return "", false
	}
	return lookupEnviron(b, name)
}

// lookupEnviron returns the value of the first entry name=VALUE in b,
// entries separated by NUL bytes as in /proc/PID/environ (the last may
// be cut short, or lack its NUL).
func lookupEnviron(b []byte, name string) (string, bool) {
	prefix := []byte(name + "=")
	for len(b) > 0 {
		entry := b
		if i := bytes.IndexByte(b, 0); i >= 0 {
			entry, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if v, ok := bytes.CutPrefix(entry, prefix); ok {
			return string(v), true
		}
	}
	return "", false
}

// pipeInodes returns the inode numbers of the pipes pid holds open, from
// the links in /proc/PID/fd ("pipe:[12345]"), looking at no more than
// maxDescriptors descriptors.
func pipeInodes(pid int) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxDescriptors)
	var out []uint64
	for _, n := range names {
		link, err := os.Readlink(dir + n)
		if err != nil {
			continue
		}
		rest, ok := strings.CutPrefix(link, "pipe:[")
		if !ok {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
			out = append(out, ino)
		}
	}
	return out
}

// readLimited reads the /proc file p; more than limit bytes is an error.
func readLimited(p string, limit int64) ([]byte, error) {
	b, err := readPrefix(p, limit+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errors.New(p + ": longer than " + strconv.FormatInt(limit, 10) + " bytes")
	}
	return b, nil
}

// readPrefix reads the first limit bytes (at most) of the /proc file p,
// with plain system calls: these files are read for every call, and
// os.File's poller registration would double the calls.
func readPrefix(p string, limit int64) ([]byte, error) {
	fd, err := openNoEINTR(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, min(limit, 4096))
	for int64(len(out)) < limit {
		n, err := syscall.Read(fd, buf[:min(int64(len(buf)), limit-int64(len(out)))])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n == 0 {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out, nil
}

func openNoEINTR(p string) (int, error) {
	for {
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}
