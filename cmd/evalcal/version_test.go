package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLineFromBuildInfo(t *testing.T) {
	setting := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tt := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "evalcal 0.2.0"},
		{debug.BuildInfo{}, "evalcal 0.2.0"},
		// One version source: the module version Go records is not
		// printed, so --version names the version reports carry.
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "evalcal 0.2.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: setting("vcs.revision", "4f47090abcdef0123456789abcdef0123456789a", "vcs.modified", "false")},
			"evalcal 0.2.0 (commit 4f47090abcde)"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201145800-4f47090abcde+dirty"},
			Settings: setting("vcs", "git", "vcs.revision", "4f47090abcdef0123456789abcdef0123456789a", "vcs.modified", "true")},
			"evalcal 0.2.0 (commit 4f47090abcde, modified)"},
	} {
		if got := versionFromBuildInfo(&tt.info); got != tt.want {
			t.Errorf("versionFromBuildInfo(%+v) = %q, want %q", tt.info, got, tt.want)
		}
	}
}
