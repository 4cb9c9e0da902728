package execinspector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readyTimeout bounds the reaper's start: a re-executed evalcal on a
// loaded machine.
const readyTimeout = 30 * time.Second

// launcher starts an Inspector's programs: through its reaper, started at
// the first call and again after it died, or directly (in their own
// process group) when no reaper can be started. Safe for concurrent use.
type launcher struct {
	mu       sync.Mutex
	cur      *reaperConn
	failures int   // reaper starts that failed in a row
	broken   error // no reaper can run here: calls run directly
}

// maxReaperFailures is how many failed starts in a row (a transient
// fork failure, a reaper too slow to answer) make the launcher give up
// on the reaper; a missing /proc/self/exe or a refused prctl gives up at
// once.
const maxReaperFailures = 3

func newLauncher() *launcher { return &launcher{} }

// spawn runs one program; see spawnSpec.
func (l *launcher) spawn(ctx context.Context, s spawnSpec) (spawnResult, error) {
	rc, err := l.reaper()
	if err != nil {
		return spawnDirect(ctx, s)
	}
	return rc.spawn(ctx, s)
}

// reaper returns the running reaper, starting one if there is none.
func (l *launcher) reaper() (*reaperConn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.broken != nil {
		return nil, l.broken
	}
	if l.cur != nil && !l.cur.isGone() {
		return l.cur, nil
	}
	rc, err := startReaper()
	if err != nil {
		l.failures++
		var refused *reaperRefusal
		if l.failures >= maxReaperFailures || errors.Is(err, fs.ErrNotExist) || errors.As(err, &refused) {
			l.broken = err
		}
		return nil, err
	}
	l.failures = 0
	l.cur = rc
	return rc, nil
}

// close ends the reaper (it kills whatever is left of any call) and waits
// for it to exit. The launcher stays usable: the next call starts a new
// reaper.
func (l *launcher) close() error {
	l.mu.Lock()
	rc := l.cur
	l.cur = nil
	l.mu.Unlock()
	if rc == nil {
		return nil
	}
	return rc.close()
}

// release closes the socket of an abandoned launcher's reaper without
// waiting: the reaper sees the end of it and cleans up on its own.
func (l *launcher) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur != nil {
		l.cur.hangUp(errors.New("inspector released"))
	}
}

// reaperConn is evalcal's end of one reaper.
type reaperConn struct {
	conn *net.UnixConn
	pid  int        // the reaper's: the first part of its calls' markers
	wmu  sync.Mutex // one sendmsg at a time

	mu      sync.Mutex
	nextID  uint64
	waiting map[uint64]chan reply

	// gone is closed by the reader once the connection ended (the reaper
	// exited, or evalcal hung up) and every reply sent before was routed:
	// a call that sees it gone has all the replies it will ever get.
	gone    chan struct{}
	goneErr error

	hangUpOnce sync.Once
	hangUpErr  error         // why evalcal hung up, if it did
	exited     chan struct{} // closed when the reaper process was waited for
}

// startReaper re-executes evalcal as a reaper and waits for it to say it
// is ready.
func startReaper() (*reaperConn, error) {
	if _, err := os.Stat(selfExe); err != nil {
		return nil, fmt.Errorf("start reaper: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("start reaper: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "reaper socket"), os.NewFile(uintptr(fds[1]), "reaper socket")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	_ = ours.Close()
	if err != nil {
		return nil, fmt.Errorf("start reaper: %w", err)
	}
	conn, ok := fc.(*net.UnixConn)
	if !ok {
		_ = fc.Close()
		return nil, fmt.Errorf("start reaper: socket is a %T", fc)
	}
	cmd := exec.Command(selfExe, reaperMagic)
	cmd.Args[0] = reaperName
	cmd.ExtraFiles = []*os.File{theirs} // descriptor 3 = reaperFD
	// Its own process group: a terminal's Ctrl-C reaches evalcal only,
	// which then ends the calls in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("start reaper: %w", err)
	}
	_ = theirs.Close()
	rc := &reaperConn{conn: conn, pid: cmd.Process.Pid, waiting: map[uint64]chan reply{},
		gone: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // its end of the socket closed with it: the reader sees that
		close(rc.exited)
	}()
	var rep reply
	buf := make([]byte, maxMessage)
	_ = conn.SetReadDeadline(time.Now().Add(readyTimeout))
	n, err := conn.Read(buf)
	if err == nil {
		err = json.Unmarshal(buf[:n], &rep)
	}
	if err == nil && rep.Op != opReady {
		err = &reaperRefusal{reason: rep.Err}
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = conn.Close()
		<-rc.exited
		return nil, fmt.Errorf("start reaper: %w", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	go rc.read()
	return rc, nil
}

// reaperRefusal is a reaper that started but cannot serve (the kernel
// refused to make it a subreaper).
type reaperRefusal struct{ reason string }

func (e *reaperRefusal) Error() string { return "reaper refused: " + e.reason }

// read routes every reply to the call waiting for it.
func (rc *reaperConn) read() {
	buf := make([]byte, maxMessage)
	for {
		n, err := rc.conn.Read(buf)
		if err == nil && n == 0 {
			err = io.EOF
		}
		var rep reply
		if err == nil {
			err = json.Unmarshal(buf[:n], &rep)
		}
		if err != nil {
			rc.setGone(err)
			return
		}
		rc.mu.Lock()
		ch := rc.waiting[rep.ID]
		rc.mu.Unlock()
		if ch != nil {
			ch <- rep // buffered for the two replies a call gets
		}
	}
}

// setGone closes gone, with the reason: evalcal's hang-up, or the end of
// the reaper. A reaper that ended on its own (killed) cleaned up nothing:
// evalcal then kills every process carrying one of its calls' markers
// (their process groups too), which includes programs it had not yet
// reported started.
func (rc *reaperConn) setGone(err error) {
	rc.hangUpOnce.Do(func() {}) // no hang-up after this
	if rc.hangUpErr != nil {
		rc.goneErr = rc.hangUpErr
	} else {
		rc.goneErr = fmt.Errorf("the reaper ended (%v)", err)
		killMarked(strconv.Itoa(rc.pid) + ".")
	}
	_ = rc.conn.Close()
	close(rc.gone)
}

// hangUp closes evalcal's end of the socket, which ends the reaper (it
// kills whatever is left of any call first); the reader then sees the
// connection end. The first reason is kept.
func (rc *reaperConn) hangUp(err error) {
	rc.hangUpOnce.Do(func() {
		rc.hangUpErr = err
		_ = rc.conn.Close()
	})
}

func (rc *reaperConn) isGone() bool {
	select {
	case <-rc.gone:
		return true
	default:
		return false
	}
}

// close ends the reaper and waits for it to exit, at most sweepLimit and
// a second.
func (rc *reaperConn) close() error {
	rc.hangUp(errors.New("inspector closed"))
	select {
	case <-rc.exited:
		return nil
	case <-time.After(sweepLimit + time.Second):
		return errors.New("exec inspector: close: the reaper did not exit")
	}
}

// register returns a new call id and the channel its replies arrive on.
func (rc *reaperConn) register() (uint64, chan reply) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.nextID++
	ch := make(chan reply, 2)
	rc.waiting[rc.nextID] = ch
	return rc.nextID, ch
}

func (rc *reaperConn) unregister(id uint64) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	delete(rc.waiting, id)
}

// send writes one request with files passed along.
func (rc *reaperConn) send(req request, files ...*os.File) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	return rc.sendBytes(b, files...)
}

// sendBytes writes one encoded request with files passed along.
func (rc *reaperConn) sendBytes(b []byte, files ...*os.File) error {
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			// Fd puts the file in blocking mode, as a program expects
			// of its stdout (os/exec does the same).
			fds[i] = int(f.Fd())
		}
		oob = unix.UnixRights(fds...)
	}
	rc.wmu.Lock()
	defer rc.wmu.Unlock()
	_, _, err := rc.conn.WriteMsgUnix(b, oob, nil)
	return err
}

// spawn runs one program through the reaper. The program's stdout and
// stderr are pipes whose write ends go to the reaper (and from it to the
// program only); the call ends when the reaper says the program exited
// and its call was swept, then the pipes are read to their end (at most
// waitDelay more). (long: one sequence of pipe, send, wait and drain
// steps, each undoing the earlier ones on error; split, the cleanup would
// be spread over functions.)
func (rc *reaperConn) spawn(ctx context.Context, s spawnSpec) (spawnResult, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return spawnResult{}, &startError{err: err}
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		_, _ = outR.Close(), outW.Close()
		return spawnResult{}, &startError{err: err}
	}
	defer outR.Close()
	defer errR.Close()
	id, replies := rc.register()
	defer rc.unregister(id)

	if s.dir == "" {
		// The reaper's working directory is evalcal's when it started;
		// the program gets evalcal's at the time of the call.
		if s.dir, err = os.Getwd(); err != nil {
			_, _ = outW.Close(), errW.Close()
			return spawnResult{}, &startError{err: err}
		}
	}
	req := request{Op: opStart, ID: id, Prog: s.prog, Argv: s.argv, Env: s.env, Dir: s.dir}
	err = rc.sendStart(req, outW, errW)
	_, _ = outW.Close(), errW.Close()
	if err != nil {
		rc.hangUp(fmt.Errorf("send to reaper: %w", err))
		return spawnResult{}, fmt.Errorf("exec reaper: %w", err)
	}
	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(s.stdout, outR) })
	copies.Go(func() { _, _ = io.Copy(s.stderr, errR) })
	// Before returning, the copies must be over: the buffers are read
	// by the caller.
	stopCopies := func() {
		_ = outR.SetReadDeadline(time.Now())
		_ = errR.SetReadDeadline(time.Now())
		copies.Wait()
	}

	var pid int
	// A reply queued before the reaper went away wins over its going.
	next := func() (reply, bool) {
		select {
		case rep := <-replies:
			return rep, true
		default:
		}
		select {
		case rep := <-replies:
			return rep, true
		case <-rc.gone:
			select {
			case rep := <-replies:
				return rep, true
			default:
				return reply{}, false
			}
		}
	}
	if rep, ok := next(); !ok {
		stopCopies()
		return spawnResult{}, fmt.Errorf("exec reaper: %w", rc.goneErr)
	} else if rep.Op == opFailed {
		stopCopies()
		return spawnResult{}, &startError{err: replyError(rep)}
	} else {
		pid = rep.Pid
	}
	killGroup := func() {
		if pid > 1 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}

	finish := func(rep reply) (spawnResult, error) {
		res := spawnResult{status: syscall.WaitStatus(rep.Status), left: rep.Left}
		allRead := make(chan struct{})
		go func() { copies.Wait(); close(allRead) }()
		select {
		case <-allRead:
		case <-time.After(waitDelay):
			res.outputOpen = true
			stopCopies()
		}
		return res, nil
	}
	var killed <-chan time.Time
	done := ctx.Done()
	for {
		select {
		case rep := <-replies:
			if rep.Op == opExited {
				return finish(rep)
			}
		case <-done:
			done = nil
			_ = rc.send(request{Op: opKill, ID: id})
			killed = time.After(sweepLimit + waitDelay)
		case <-killed:
			killGroup()
			stopCopies()
			return spawnResult{}, errors.New("exec reaper: no answer after killing the call")
		case <-rc.gone:
			if rep, ok := next(); ok && rep.Op == opExited {
				return finish(rep) // answered before it went
			}
			// The program dies with the reaper (PR_SET_PDEATHSIG); its
			// group is killed here too. Its descendants outside the group
			// went to init.
			killGroup()
			stopCopies()
			return spawnResult{}, fmt.Errorf("exec reaper: %w", rc.goneErr)
		}
	}
}

// sendStart sends a start request, through a pipe when it is too long for
// one message.
func (rc *reaperConn) sendStart(req request, stdout, stderr *os.File) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if len(b) <= maxInline {
		return rc.sendBytes(b, stdout, stderr)
	}
	if len(b) > maxRequest {
		return fmt.Errorf("arguments and environment of %d bytes, more than %d", len(b), maxRequest)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	written := make(chan error, 1)
	go func() {
		_, err := pw.Write(b)
		_ = pw.Close()
		written <- err
	}()
	if err := rc.send(request{Op: opStart, ID: req.ID, Size: len(b)}, stdout, stderr, pr); err != nil {
		_ = pr.Close() // unblocks the writer
		<-written
		return err
	}
	_ = pr.Close()
	return <-written
}

// replyError is the start error a "failed" reply carries.
func replyError(rep reply) error {
	if rep.Errno != 0 {
		return syscall.Errno(rep.Errno)
	}
	return errors.New(rep.Err)
}
