package execinspector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The reaper is the evalcal binary re-executed as /proc/self/exe with
// argv[0] reaperName and argv[1] reaperMagic; init turns such a process
// into the reaper before main runs (issue 13.22: grandchildren that call
// setsid survived a call).
const (
	reaperName  = "evalcal-exec-reaper"
	reaperMagic = "--evalcal-exec-reaper-v1"
	selfExe     = "/proc/self/exe"
	// parentPoll is how often the reaper checks that evalcal is alive.
	parentPoll = 200 * time.Millisecond
	// sweepLimit bounds the final sweep: processes that cannot be killed
	// (another user's, stuck in the kernel) are given up on after it.
	sweepLimit = 2 * time.Second
)

func init() {
	// argv: reaperName reaperMagic PARENT_PID PROGRAM ARGV0 ARGS...
	if len(os.Args) >= 5 && os.Args[0] == reaperName && os.Args[1] == reaperMagic {
		parent, err := strconv.Atoi(os.Args[2])
		if err != nil {
			fmt.Fprintf(os.Stderr, "evalcal: exec reaper: bad parent pid %q\n", os.Args[2])
			os.Exit(exitCommandNotFound)
		}
		os.Exit(reap(parent, os.Args[3], os.Args[4:]))
	}
}

// command returns the command for one call: the reaper running prog with
// argv when /proc/self/exe can be executed, else the program directly in
// its own process group. The reaper is a process group of its own (so a
// terminal's Ctrl-C does not reach it); the end of ctx sends it SIGTERM,
// on which it kills everything below it and exits.
func command(ctx context.Context, prog string, argv []string) *exec.Cmd {
	if _, err := os.Stat(selfExe); err != nil {
		return groupCommand(ctx, prog, argv)
	}
	args := append([]string{reaperMagic, strconv.Itoa(os.Getpid()), prog}, argv...)
	cmd := exec.CommandContext(ctx, selfExe, args...)
	cmd.Args[0] = reaperName
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	return cmd
}

// reap is the reaper's main: it becomes a child subreaper, runs the
// program with the reaper's stdin, stdout and stderr, waits for it, kills
// its process group and then every process left below the reaper, and
// returns the program's exit status (a program killed by SIGKILL,
// SIGTERM, SIGINT or SIGHUP is answered by the reaper dying of the same
// signal; other signals give 128+signal). A program that cannot be
// started gives 127 with the reason on stderr.
func reap(parent int, prog string, argv []string) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		// Without it orphans go to init; the process group is still killed.
		fmt.Fprintf(os.Stderr, "evalcal: exec reaper: prctl: %v\n", err)
	}
	if os.Getppid() != parent {
		return exitCommandNotFound // evalcal is gone already
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "evalcal: start %s: %v\n", argv[0], err)
		return exitCommandNotFound
	}
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		// Wait for the exit without reaping: the zombie keeps pid (and
		// so the process group id) from being reused until the group
		// was killed below.
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(exited)
	}()
	tick := time.NewTicker(parentPoll)
	for waiting := true; waiting; {
		select {
		case <-exited:
			waiting = false
		case <-sigs:
			_ = unix.Kill(-pid, unix.SIGKILL)
		case <-tick.C:
			if os.Getppid() != parent {
				_ = unix.Kill(-pid, unix.SIGKILL)
			}
		}
	}
	tick.Stop()
	_ = unix.Kill(-pid, unix.SIGKILL)
	_ = cmd.Wait()
	sweep()

	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = unix.Kill(os.Getpid(), sig)
		time.Sleep(time.Second) // the signal is on its way
	}
	return 128 + int(ws.Signal())
}

// sweep kills every child of the reaper, again and again as killed
// processes' children are reparented to it, and reaps them, until it has
// no child left (wait4 answers ECHILD) or sweepLimit has passed. While
// any descendant lives, the reaper has a child: a process whose parent
// dies is reparented to the nearest subreaper before its parent turns
// into a zombie.
func sweep() {
	self := os.Getpid()
	pause := time.Millisecond
	for start := time.Now(); ; {
		for {
			var ws unix.WaitStatus
			p, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if errors.Is(err, unix.ECHILD) {
				return
			}
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || p <= 0 {
				break // children left, none exited yet
			}
		}
		if time.Since(start) > sweepLimit {
			return
		}
		for _, c := range childrenOf(self) {
			_ = unix.Kill(-c, unix.SIGKILL) // its group, if it leads one
			_ = unix.Kill(c, unix.SIGKILL)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if pp, err := parentOf(p); err == nil && pp == pid {
			out = append(out, p)
		}
	}
	return out
}

// parentOf reads the parent pid of pid from /proc/PID/stat: the fourth
// field, counted after the command name, which is in parentheses and may
// itself hold spaces and parentheses.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fs.ErrInvalid
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, fs.ErrInvalid
	}
	return strconv.Atoi(f[1])
}
