package execinspector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Hand-written /proc/PID/stat lines: the command name is in parentheses
// and is whatever the process called itself, spaces and parentheses
// included (proc(5): "(2) comm ... in parentheses").
func TestParseStat(t *testing.T) {
	for _, tt := range []struct {
		line string
		want procState
		err  bool
	}{
		{"4242 (sleep) S 17 4242 4242 0 -1 4194560 90 0 0 0\n", procState{state: 'S', ppid: 17, pgid: 4242}, false},
		{"7 (a b) R 1 7 7 0", procState{state: 'R', ppid: 1, pgid: 7}, false},
		{"8 (x) (y) Z 2 9 9 0", procState{state: 'Z', ppid: 2, pgid: 9}, false},
		{"9 ()) D 3 3 3", procState{state: 'D', ppid: 3, pgid: 3}, false},
		{"10 (x) S 4", procState{}, true},    // too short
		{"11 (x) SS 4 5", procState{}, true}, // state is one letter
		{"11 (x) \xe8 4 5", procState{}, true},
		{"11 (x) 5 4 5", procState{}, true},
		{"12 x S 4 5", procState{}, true}, // no parentheses
		{"13 (x) S four 5", procState{}, true},
		{"", procState{}, true},
		// Whole lines seen from the reaper (Linux 6, 52 fields): a sleep
		// with its image (env_end 140725273165801), the same sleep
		// killed and exiting with its memory let go of (env_end 0, exit
		// code 9), and a zombie, whose image is gone for good.
		{"8380 (sleep) S 8367 8378 8378 0 -1 4194304 77 0 0 0 0 0 0 0 20 0 1 0 1036420 2560000 318 18446744073709551615 94234520346624 94234520364553 140725273160656 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 94234520378640 94234520379904 94234825240576 140725273165762 140725273165772 140725273165772 140725273165801 0\n",
			procState{state: 'S', ppid: 8367, pgid: 8378}, false},
		{"3997 (sleep) R 3982 3994 3994 0 -1 4195340 79 0 0 0 0 0 0 0 20 0 1 0 1109530 0 0 18446744073709551615 0 0 0 0 0 0 0 6 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 9\n",
			procState{state: 'R', ppid: 3982, pgid: 3994, noImage: true}, false},
		{"3997 (sleep) Z 3982 3994 3994 0 -1 4228108 79 0 0 0 0 0 0 0 20 0 1 0 1109530 0 0 18446744073709551615 0 0 0 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 9\n",
			procState{state: 'Z', ppid: 3982, pgid: 3994}, false},
		// A line one field short of env_end (an old kernel) says nothing
		// of the image.
		{"5 (x) R 1 5 5" + strings.Repeat(" 0", 44) + "\n", procState{state: 'R', ppid: 1, pgid: 5}, false},
		{"5 (x) R 1 5 5" + strings.Repeat(" 0", 45) + "\n", procState{state: 'R', ppid: 1, pgid: 5, noImage: true}, false},
	} {
		got, err := parseStat(tt.line)
		if tt.err {
			if !errors.Is(err, fs.ErrInvalid) {
				t.Errorf("parseStat(%q) = %+v, %v; want fs.ErrInvalid", tt.line, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
}

// This process's own stat agrees with what the os package says of it.
func TestReadStatOfSelf(t *testing.T) {
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() || st.state != 'R' && st.state != 'S' {
		t.Errorf("readStat(self) = %+v, want ppid %d, running or sleeping", st, os.Getppid())
	}
}

// A live process with its image (this one) is not between images, even
// when told its stat line showed none; a process gone since is (it is
// judged again on the next look); a stat line with an image is never.
func TestBetweenImages(t *testing.T) {
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.noImage {
		t.Errorf("readStat(self) = %+v: this process has an image", st)
	}
	if betweenImages(os.Getpid(), procState{state: 'R', noImage: true}) {
		t.Error("this process, whose environment reads, is between images")
	}
	gone := exitedPid(t)
	if !betweenImages(gone, procState{state: 'R', noImage: true}) {
		t.Errorf("process %d, gone, is not between images", gone)
	}
	if betweenImages(gone, procState{state: 'R'}) {
		t.Errorf("process %d is between images though its stat line showed an image", gone)
	}
}

// exitedPid starts a process and waits for it, returning its pid.
func exitedPid(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip("no /bin/true:", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

// FuzzParseStat: never panics; a line it accepts has a one-letter state
// and the numbers it returns are the line's fields after the last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add("4242 (sleep) S 17 4242 4242 0 -1")
	f.Add("8 (x) (y) Z 2 9 9 0")
	f.Add("9 ()) D 3 3 3")
	f.Fuzz(func(t *testing.T, line string) {
		st, err := parseStat(line)
		if err != nil {
			return
		}
		rest := strings.Fields(line[strings.LastIndexByte(line, ')')+1:])
		ppid, _ := strconv.Atoi(rest[1])
		pgid, _ := strconv.Atoi(rest[2])
		if string([]byte{st.state}) != rest[0] || st.ppid != ppid || st.pgid != pgid {
			t.Errorf("parseStat(%q) = %+v, not the line's fields %q", line, st, rest)
		}
	})
}

func TestLookupEnviron(t *testing.T) {
	env := []byte("A=1\x00EVALCAL_CALL=12.3\x00EVALCAL_CALLX=no\x00B=\x00EVALCAL_CALL=second")
	for _, tt := range []struct {
		env, name, want string
		ok              bool
	}{
		{string(env), "EVALCAL_CALL", "12.3", true}, // the first entry wins, as getenv
		{string(env), "B", "", true},
		{string(env), "A", "1", true},
		{string(env), "EVALCAL", "", false},               // a prefix of a name is not the name
		{"EVALCAL_CALL=cut", "EVALCAL_CALL", "cut", true}, // no final NUL
		{"", "A", "", false},
		{"\x00\x00A=2\x00", "A", "2", true},
	} {
		got, ok := lookupEnviron([]byte(tt.env), tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("lookupEnviron(%q, %s) = %q, %v; want %q, %v", tt.env, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// This process's environment read back from /proc agrees with os.Getenv.
func TestEnvironValueOfSelf(t *testing.T) {
	// /proc/self/environ is the environment at exec; PATH is set by then.
	want, ok := os.LookupEnv("PATH")
	if !ok {
		t.Skip("no PATH")
	}
	if got, found := environValue(os.Getpid(), "PATH"); !found || got != want {
		t.Errorf("environValue(self, PATH) = %q, %v; want %q", got, found, want)
	}
}

// The children of this process are found, with their pipes.
func TestChildrenAndPipesOfSelf(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := os.StartProcess("/bin/sh", []string{"sh", "-c", "read x"}, &os.ProcAttr{Files: []*os.File{r, w, os.Stderr}})
	if err != nil {
		t.Skip(err)
	}
	w.Close()
	defer p.Wait()
	defer p.Kill()
	kids, err := childrenOfSelf()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range kids {
		found = found || k == p.Pid
	}
	if !found {
		t.Errorf("childrenOfSelf() = %v, lacks the child %d", kids, p.Pid)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(r.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	inodes := pipeInodes(p.Pid)
	if n := strings.Count(fmt.Sprint(inodes), strconv.FormatUint(st.Ino, 10)); n != 2 {
		t.Errorf("pipeInodes(child) = %v, want the pipe %d twice (stdin and stdout)", inodes, st.Ino)
	}
}
