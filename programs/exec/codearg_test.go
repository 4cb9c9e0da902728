package execinspector

import "testing"

func TestCodeArgument(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"sh", "-c", "x {run}"}, 2},
		{[]string{"/bin/bash", "-lc", "x {run}", "bash", "{run}"}, 2},
		{[]string{"bash", "-e", "-o", "pipefail", "-c", "x"}, -1}, // "pipefail" is -o's value: read as a script file
		{[]string{"sh", "script.sh", "{run}"}, -1},
		{[]string{"env", "A=1", "-i", "sh", "-ec", "x"}, 5},
		{[]string{"busybox", "sh", "-c", "x"}, 3},
		{[]string{"python3", "-u", "-c", "x"}, 3},
		{[]string{"perl", "-e", "x"}, 2},
		{[]string{"node", "--eval", "x"}, 2},
		{[]string{"my-inspector", "-c", "x"}, -1},
		{[]string{"sh"}, -1},
	}
	for _, c := range cases {
		if got := codeArgument(c.args); got != c.want {
			t.Errorf("codeArgument(%q) = %d, want %d", c.args, got, c.want)
		}
	}
	for s, want := range map[string]bool{"/tmp/runs/20260101-x_y.z": true, "./a,b:c=d@e%f+g": true,
		"/tmp/$(touch PWNED)": false, "a b": false, "a'b": false, "a\"b": false, "a`b": false, "a;b": false, "a\nb": false} {
		if shellSafe(s) != want {
			t.Errorf("shellSafe(%q) = %v", s, !want)
		}
	}
}
