package execinspector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The reaper is the evalcal binary re-executed once per Inspector as
// /proc/self/exe with argv[0] reaperName and argv[1] reaperMagic; init
// turns such a process into the reaper before main runs. It is a child
// subreaper, so every process a call leaves behind is re-parented to it,
// never to init nor to evalcal. evalcal asks it over a socket (descriptor
// reaperFD) to start programs, and it answers when each program has
// exited and everything the call left has been killed.
const (
	reaperName  = "evalcal-exec-reaper"
	reaperMagic = "--evalcal-exec-reaper-v2"
	selfExe     = "/proc/self/exe"
	reaperFD    = 3
	// sweepLimit bounds the sweep after a call: processes that cannot be
	// killed (another user's, stuck in the kernel) are given up on after
	// it, and the answer says how many.
	sweepLimit = 2 * time.Second
	// sweepPoll is how often a sweep with processes left looks again:
	// the children of a killed grandchild are re-parented to the reaper
	// without a signal.
	sweepPoll = 5 * time.Millisecond
	// maxMessage bounds one socket message; a start request longer than
	// maxInline (a large environment) is sent through a pipe instead, at
	// most maxRequest bytes.
	maxMessage = 64 << 10
	maxInline  = 48 << 10
	maxRequest = 16 << 20
)

// Operations of the protocol between evalcal and its reaper.
const (
	opStart   = "start"   // evalcal: run a program; descriptors: stdout, stderr[, request pipe]
	opKill    = "kill"    // evalcal: kill a call's process group now
	opReady   = "ready"   // reaper: it is a subreaper and serving
	opStarted = "started" // reaper: the program runs as Pid
	opFailed  = "failed"  // reaper: the program could not be started (Errno, Err)
	opExited  = "exited"  // reaper: the program exited (Status) and its call was swept (Left alive)
)

// request is a message from evalcal to the reaper.
type request struct {
	Op   string   `json:"op"`
	ID   uint64   `json:"id"`
	Prog string   `json:"prog,omitempty"`
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	// Size > 0 says the start request did not fit a message: its JSON,
	// Size bytes, is on the third descriptor.
	Size int `json:"size,omitempty"`
}

// reply is a message from the reaper to evalcal.
type reply struct {
	Op     string `json:"op"`
	ID     uint64 `json:"id,omitempty"`
	Pid    int    `json:"pid,omitempty"`
	Errno  int    `json:"errno,omitempty"`
	Err    string `json:"err,omitempty"`
	Status int    `json:"status,omitempty"`
	Left   int    `json:"left,omitempty"`
}

func init() {
	if len(os.Args) == 2 && os.Args[0] == reaperName && os.Args[1] == reaperMagic {
		os.Exit(serveReaper())
	}
}

// reaper is the state of the reaper process. One thread does all its
// work, in a poll loop without goroutines: on a loaded machine every hop
// between threads costs a context switch, and a call makes several
// events. That thread is the main thread, which forks every program, so
// PR_SET_PDEATHSIG of the programs (tied to the thread that forked them)
// lasts as long as the reaper.
type reaper struct {
	sock    int // evalcal's socket: requests in, replies out
	pid     int
	token   string // pid as text: the first part of every marker
	devnull *os.File
	wake    *os.File // read end of the pipe a stop signal writes to

	calls   map[uint64]*reapedCall // running, or exited and being swept
	running map[int]*reapedCall    // by program pid, until reaped
	pipes   map[uint64]uint64      // stdout/stderr pipe inode -> call id
	maxID   uint64                 // the highest id started: a marker id <= maxID not in calls is a finished call
	// strays are children that carry nothing of any call (their
	// environment cleared, no pipe of a call left open), with the calls
	// unfinished when each was first seen: one of them started it.
	strays map[int][]uint64
	buf    []byte // one request message
	oob    []byte
}

// reapedCall is one call the reaper runs.
type reapedCall struct {
	id       uint64
	pid      int
	pidfd    int // readable when the program exits; -1 without pidfd support
	inodes   []uint64
	exited   bool // the program was reaped; the call is being swept
	status   unix.WaitStatus
	deadline time.Time
}

// serveReaper is the reaper's main. It runs from init, so on the main
// thread (the runtime locks the main goroutine to it during init): every
// program is forked by that thread, and the kernel hands orphans to a
// subreaper's first live thread, the same one. All the reaper's children
// are thus in /proc/self/task/PID/children, one small file to read after
// each call.
func serveReaper() int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		sendReply(reaperFD, reply{Op: opFailed, Err: fmt.Sprintf("prctl PR_SET_CHILD_SUBREAPER: %v", err)})
		return 2
	}
	unix.CloseOnExec(reaperFD)
	// Programs get their directory with each request; the reaper keeps
	// none busy.
	_ = unix.Chdir("/")
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		sendReply(reaperFD, reply{Op: opFailed, Err: err.Error()})
		return 2
	}
	// A stop signal (pkill, a supervisor) cleans up like the end of the
	// socket. Notified, not ignored: an ignored signal would stay ignored
	// in the programs.
	wakeR, wakeW, err := os.Pipe()
	if err != nil {
		sendReply(reaperFD, reply{Op: opFailed, Err: err.Error()})
		return 2
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, unix.SIGTERM, unix.SIGINT, unix.SIGHUP)
	go func() {
		<-stop
		_ = wakeW.Close()
	}()
	r := &reaper{sock: reaperFD, pid: os.Getpid(), token: strconv.Itoa(os.Getpid()), devnull: devnull, wake: wakeR,
		calls: map[uint64]*reapedCall{}, running: map[int]*reapedCall{},
		pipes: map[uint64]uint64{}, strays: map[int][]uint64{},
		buf: make([]byte, maxMessage), oob: make([]byte, unix.CmsgSpace(3*4))}
	if sendReply(r.sock, reply{Op: opReady}) {
		r.serve()
	}
	r.shutdown()
	return 0
}

// serve answers requests until evalcal closes the socket (it exited, was
// killed, or closed the inspector), a request cannot be read, or a stop
// signal came.
func (r *reaper) serve() {
	wakeFD := int(r.wake.Fd())
	var fds []unix.PollFd
	for {
		fds = append(fds[:0], unix.PollFd{Fd: int32(r.sock), Events: unix.POLLIN}, unix.PollFd{Fd: int32(wakeFD), Events: unix.POLLIN})
		timeout := -1
		for _, c := range r.running {
			if c.pidfd >= 0 {
				fds = append(fds, unix.PollFd{Fd: int32(c.pidfd), Events: unix.POLLIN})
			} else {
				timeout = int(sweepPoll / time.Millisecond) // no pidfd: look now and then
			}
		}
		if r.sweeping() {
			timeout = int(sweepPoll / time.Millisecond)
		}
		if _, err := unix.Poll(fds, timeout); err != nil && err != unix.EINTR {
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents != 0 && !r.readRequests() {
			return
		}
		r.reap()
		r.sweep()
	}
}

// readRequests carries out every request waiting on the socket; false
// means the socket ended or a request could not be read (a protocol
// error ends the reaper: evalcal then sees it gone).
func (r *reaper) readRequests() bool {
	for {
		n, oobn, flags, _, err := unix.Recvmsg(r.sock, r.buf, r.oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
		if err == unix.EAGAIN || err == unix.EINTR {
			return true
		}
		if err != nil || (n == 0 && oobn == 0) {
			return false
		}
		fds := parseRights(r.oob[:oobn])
		var req request
		if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || json.Unmarshal(r.buf[:n], &req) != nil {
			closeAll(fds)
			return false
		}
		m := inbound{req: req, fds: fds}
		if req.Size > 0 {
			m = readLongRequest(req, fds)
		}
		r.handle(m)
	}
}

// inbound is a request with the descriptors it brought.
type inbound struct {
	req request
	fds []int
	err error // the request could not be read whole; fds are closed
}

// readLongRequest reads the start request req announced from its third
// descriptor, and closes that descriptor.
func readLongRequest(req request, fds []int) inbound {
	if len(fds) != 3 || req.Size > maxRequest {
		closeAll(fds)
		return inbound{req: req, err: fmt.Errorf("request of %d bytes with %d descriptors", req.Size, len(fds))}
	}
	f := os.NewFile(uintptr(fds[2]), "request")
	defer f.Close()
	b := make([]byte, req.Size)
	var long request
	if _, err := io.ReadFull(f, b); err != nil {
		closeAll(fds[:2])
		return inbound{req: req, err: fmt.Errorf("read request: %w", err)}
	}
	if err := json.Unmarshal(b, &long); err != nil || long.ID != req.ID {
		closeAll(fds[:2])
		return inbound{req: req, err: fmt.Errorf("read request: bad JSON or id (%v)", err)}
	}
	return inbound{req: long, fds: fds[:2]}
}

// sweeping reports whether a call is being swept.
func (r *reaper) sweeping() bool {
	for _, c := range r.calls {
		if c.exited {
			return true
		}
	}
	return false
}

// handle carries out one request.
func (r *reaper) handle(m inbound) {
	switch {
	case m.err != nil:
		r.send(reply{Op: opFailed, ID: m.req.ID, Errno: int(unix.EINVAL), Err: m.err.Error()})
	case m.req.Op == opStart:
		r.start(m.req, m.fds)
	case m.req.Op == opKill:
		closeAll(m.fds)
		if c := r.calls[m.req.ID]; c != nil && !c.exited {
			_ = unix.Kill(-c.pid, unix.SIGKILL)
		}
	default:
		closeAll(m.fds)
		r.send(reply{Op: opFailed, ID: m.req.ID, Errno: int(unix.EINVAL), Err: "unknown operation " + strconv.Quote(m.req.Op)})
	}
}

// start runs a program in its own process group with stdin /dev/null,
// the two descriptors received as stdout and stderr, and the call marker
// in its environment.
func (r *reaper) start(req request, fds []int) {
	defer closeAll(fds)
	if len(fds) != 2 || req.ID == 0 || r.calls[req.ID] != nil || len(req.Argv) == 0 {
		r.send(reply{Op: opFailed, ID: req.ID, Errno: int(unix.EINVAL), Err: "malformed start request"})
		return
	}
	r.maxID = max(r.maxID, req.ID)
	env := make([]string, 0, len(req.Env)+1)
	for _, kv := range req.Env {
		if !strings.HasPrefix(kv, callMarker+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, callMarker+"="+r.token+"."+strconv.FormatUint(req.ID, 10))
	pidfd := -1
	pid, err := syscall.ForkExec(req.Prog, req.Argv, &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   env,
		Files: []uintptr{r.devnull.Fd(), uintptr(fds[0]), uintptr(fds[1])},
		// If the reaper dies, the program goes with it (its descendants
		// go to init: the documented exception).
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, PidFD: &pidfd},
	})
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		r.send(reply{Op: opFailed, ID: req.ID, Errno: int(errno), Err: err.Error()})
		return
	}
	c := &reapedCall{id: req.ID, pid: pid, pidfd: pidfd}
	for _, fd := range fds {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
			c.inodes = append(c.inodes, st.Ino)
			r.pipes[st.Ino] = c.id
		}
	}
	r.calls[c.id], r.running[pid] = c, c
	r.send(reply{Op: opStarted, ID: c.id, Pid: pid})
}

// reap collects every child that exited. A program's process group is
// killed before the program is reaped, while its pid, which is the group
// id, cannot be reused; its call is then swept.
func (r *reaper) reap() {
	for {
		pid := exitedChild()
		if pid <= 0 {
			return
		}
		c := r.running[pid]
		if c != nil {
			_ = unix.Kill(-pid, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		for {
			_, err := unix.Wait4(pid, &ws, 0, nil)
			if err != unix.EINTR {
				break
			}
		}
		delete(r.strays, pid)
		if c != nil {
			delete(r.running, pid)
			if c.pidfd >= 0 {
				_ = unix.Close(c.pidfd)
			}
			c.exited, c.status, c.deadline = true, ws, time.Now().Add(sweepLimit)
		}
	}
}

// exitedChild returns the pid of a child that can be reaped, without
// reaping it, or 0 when there is none.
func exitedChild() int {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0 // ECHILD: no child at all
		}
		return siginfoPid(&info)
	}
}

// siginfoPid reads si_pid from a siginfo_t: after si_signo, si_errno and
// si_code (three C ints) comes a union aligned for pointers, whose first
// member for SIGCHLD is the pid. x/sys/unix leaves that union opaque.
func siginfoPid(info *unix.Siginfo) int {
	const word = unsafe.Sizeof(uintptr(0))
	off := (3*4 + word - 1) &^ (word - 1)
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), off)))
}

// sweep kills what the calls being swept left behind and answers for
// each call with nothing of it left alive (or past its deadline).
//
// A child of the reaper that is not a running program belongs to the
// call named by its marker, else to the call whose stdout or stderr pipe
// it holds open; it is killed with its process group once that call's
// program has exited. A child with neither (a stray: it cleared its
// environment and let go of the call's pipes) is killed once every call
// that was unfinished when the reaper first saw it has exited: it is one
// of theirs, and a running call's process is never killed.
func (r *reaper) sweep() {
	if !r.sweeping() {
		return
	}
	kids, err := childrenOfThread(r.pid)
	if err != nil {
		kids, _ = childrenOfSelf() // answer with what is known; the deadline still holds
	}
	left := map[uint64]int{}
	// settled is false when a listed child cannot be judged yet (see
	// judge); no call is answered until a later look, sweepPoll on, can.
	settled := true
	for _, pid := range kids {
		if r.running[pid] != nil {
			continue
		}
		id, ok, known := r.judge(pid)
		if !known {
			settled = false
			continue
		}
		if ok {
			c := r.calls[id]
			switch {
			case c == nil: // finished already: the process is late, not spared
				killProcessAndGroup(pid)
			case c.exited:
				killProcessAndGroup(pid)
				left[id]++
			}
			continue
		}
		blockers, seen := r.strays[pid]
		if !seen {
			for id := range r.calls {
				blockers = append(blockers, id)
			}
			r.strays[pid] = blockers
		}
		if r.allExited(blockers) {
			killProcessAndGroup(pid)
			for _, id := range blockers {
				if r.calls[id] != nil {
					left[id]++
				}
			}
		}
	}
	now := time.Now()
	for id, c := range r.calls {
		if !c.exited || ((left[id] > 0 || !settled) && now.Before(c.deadline)) {
			continue
		}
		delete(r.calls, id)
		for _, ino := range c.inodes {
			delete(r.pipes, ino)
		}
		r.send(reply{Op: opExited, ID: id, Status: int(c.status), Left: left[id]})
	}
}

// judge returns the call the reaper's child pid belongs to (owned), or
// that it belongs to none it can tell (a stray), or that it cannot be
// judged now (!known):
//   - it died: the children list was read before, so its own children,
//     handed to the reaper as it died, are not on it; it is reaped on
//     its SIGCHLD and the list read again;
//   - it has no owner and is between images (betweenImages): in execve
//     its environment reads empty until the new image is set up, and
//     exiting it has let go of its memory, then closed its pipes, while
//     its children are not yet the reaper's. Its stat line is read
//     after owner failed: memory let go of is never taken back, and a
//     process whose execve ended meanwhile is asked again.
func (r *reaper) judge(pid int) (id uint64, owned, known bool) {
	if st, err := readStat(pid); err != nil || st.state == 'Z' || st.state == 'X' {
		return 0, false, false
	}
	if id, ok := r.owner(pid); ok {
		return id, true, true
	}
	st, err := readStat(pid)
	if err != nil || st.state == 'Z' || st.state == 'X' || betweenImages(pid, st) {
		return 0, false, false
	}
	id, owned = r.owner(pid)
	return id, owned, true
}

// owner returns the call pid belongs to, by marker, then by pipe.
func (r *reaper) owner(pid int) (uint64, bool) {
	if v, ok := environValue(pid, callMarker); ok {
		token, idText, _ := strings.Cut(v, ".")
		if id, err := strconv.ParseUint(idText, 10, 64); err == nil && token == r.token && id > 0 && id <= r.maxID {
			return id, true
		}
	}
	for _, ino := range pipeInodes(pid) {
		if id, ok := r.pipes[ino]; ok {
			return id, true
		}
	}
	return 0, false
}

// allExited reports whether none of the calls ids is still running.
func (r *reaper) allExited(ids []uint64) bool {
	for _, id := range ids {
		if c := r.calls[id]; c != nil && !c.exited {
			return false
		}
	}
	return true
}

// shutdown kills every process left below the reaper, again and again as
// killed processes' children are re-parented to it, and reaps them, until
// it has no child left or sweepLimit has passed. Below the reaper there
// is nothing but calls.
func (r *reaper) shutdown() {
	for pid := range r.running {
		killProcessAndGroup(pid)
	}
	pause := time.Millisecond
	for start := time.Now(); ; {
		for {
			var ws unix.WaitStatus
			p, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err == unix.ECHILD {
				return
			}
			if err == unix.EINTR {
				continue
			}
			if err != nil || p <= 0 {
				break // children left, none exited yet
			}
		}
		if time.Since(start) > sweepLimit {
			return
		}
		kids, _ := childrenOfSelf()
		for _, c := range kids {
			killProcessAndGroup(c)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// send answers evalcal; a failed send means evalcal is gone, which the
// next poll sees too.
func (r *reaper) send(rep reply) { sendReply(r.sock, rep) }

// sendReply writes one reply on the socket sock (blocking: evalcal
// always reads).
func sendReply(sock int, rep reply) bool {
	b, err := json.Marshal(rep)
	if err != nil {
		return false
	}
	for {
		err = unix.Sendmsg(sock, b, nil, nil, unix.MSG_NOSIGNAL)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// killProcessAndGroup sends SIGKILL to pid and to the process group pid
// leads, if it leads one.
func killProcessAndGroup(pid int) {
	if pid <= 1 {
		return // 0 and -1 would mean the reaper's own group, or everything
	}
	_ = unix.Kill(-pid, unix.SIGKILL)
	_ = unix.Kill(pid, unix.SIGKILL)
}

// parseRights returns the descriptors an SCM_RIGHTS message carried.
func parseRights(oob []byte) []int {
	if len(oob) == 0 {
		return nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}
