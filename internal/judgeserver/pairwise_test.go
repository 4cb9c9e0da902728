package judgeserver

import (
	"strings"
	"testing"
)

// pairMessage builds a pairwise message in programs/llm's layout.
func pairMessage(first, second string) string {
	const tag = "[pair 0123456789abcdef]"
	return "Pairwise comparison " + tag + ": two runs.\nOnly lines that end with the tag " + tag + " separate the runs.\n\n" +
		"===== Run A ===== " + tag + "\n" + first + "\n===== Run B ===== " + tag + "\n" + second + "\n===== End of the runs ===== " + tag + "\n\nWhich?\n"
}

// TestPairwiseAnswersByMeritUnlessTheFirstSlotIsPreferred: the better run
// (a completed log against a failed one) wins in both orders; with
// first=1 the first slot wins in both; a tie is a tie.
func TestPairwiseAnswersByMeritUnlessTheFirstSlotIsPreferred(t *testing.T) {
	good := runMessage("deep", map[string]string{"state.md": "1→ a ✓\n---end 2026-01-01T00:00:00Z\n"}, "state.md")
	bad := runMessage("deep", map[string]string{"state.md": "1→ a ✗ boom\n---error 2026-01-01T00:00:00Z boom\n"}, "state.md")
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model, first, second, want string
	}{
		{ModelLarge, good, bad, `"winner":"A"`},
		{ModelLarge, bad, good, `"winner":"B"`},
		{ModelLarge, good, good, `"winner":"tie"`},
		{ModelLarge + "+first=1", bad, good, `"winner":"A"`},
		{ModelMini + "+first=1", good, bad, `"winner":"A"`},
		{ModelLarge + "+first=0", bad, good, `"winner":"B"`},
	} {
		body := chat(c.model, pairMessage(c.first, c.second))
		delete(body, "response_format") // pairwise requests are plain text
		res, out := post(t, s, "/v1/chat/completions", body, map[string]string{"Authorization": "Bearer k"})
		if res.StatusCode != 200 {
			t.Fatalf("%s: status %d", c.model, res.StatusCode)
		}
		text := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
		if !strings.Contains(text, c.want) {
			t.Errorf("%s: answer %q, want %s", c.model, text, c.want)
		}
	}
	if _, err := New(Options{FirstSlot: 1.5}); err == nil {
		t.Error("first-slot share 1.5 accepted")
	}
	if _, _, err := ParseFirstSlot("first=-0.1"); err == nil {
		t.Error("first=-0.1 accepted")
	}
}

// TestPairwiseFirstSlotShare: over many conversations the share answered
// with the first slot whatever the runs is close to the share asked for.
func TestPairwiseFirstSlotShare(t *testing.T) {
	hits := 0
	const n = 4000
	for i := 0; i < n; i++ {
		var conv [32]byte
		conv[0], conv[1] = byte(i), byte(i>>8)
		if unitHash("first-slot", conv) < 0.3 {
			hits++
		}
	}
	// Binomial(4000, 0.3): sd 29; 4 sd.
	if hits < 1200-116 || hits > 1200+116 {
		t.Errorf("%d of %d under 0.3", hits, n)
	}
}

// TestOrderSensitiveTurnsOverOnlyShuffledListings: with order=1 a run
// whose files are listed out of path order gets the opposite verdict; in
// path order, or with order=0, the verdict stands.
func TestOrderSensitiveTurnsOverOnlyShuffledListings(t *testing.T) {
	files := map[string]string{"state.md": "1→ a ✓\n---end 2026-01-01T00:00:00Z\n", "program.prose": "agent a\n", "bindings/a.md": "done\n"}
	sorted := runMessage("deep", files, "bindings/a.md", "program.prose", "state.md")
	shuffled := runMessage("deep", files, "state.md", "bindings/a.md", "program.prose")
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	verdict := func(model, msg string) string {
		t.Helper()
		_, out := post(t, s, "/v1/chat/completions", chat(model, msg), map[string]string{"Authorization": "Bearer k"})
		return content(t, out)["verdict"].(string)
	}
	base := verdict(ModelLarge, sorted)
	for _, c := range []struct {
		model, msg string
		flipped    bool
	}{
		{ModelLarge + "+order=1", sorted, false},
		{ModelLarge + "+order=1", shuffled, true},
		{ModelLarge + "+order=0", shuffled, false},
	} {
		got := verdict(c.model, c.msg)
		if (got != base) != c.flipped {
			t.Errorf("%s: verdict %s, unperturbed %s, want flipped %v", c.model, got, base, c.flipped)
		}
	}
}
