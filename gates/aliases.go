package gates

// aliases maps a gate's first field segment to a path of the calibration
// report, used only when the document has no key of that name.
var aliases = map[string][]string{
	"agreement":    {"agreement_rate"},
	"correlation":  {"score_correlation"},
	"delta":        {"mean_score_delta"},
	"mean_delta":   {"mean_score_delta"},
	"bias":         {"bias_direction"},
	"calibration":  {"forecast", "calibration"},
	"brier":        {"forecast", "brier"},
	"kappa_linear": {"kappa", "linear"},
}

// bareSectionWithAlias reports whether segs is one name whose value v is an
// object while the name's alias is present in top.
func bareSectionWithAlias(top map[string]any, segs []string, v any) bool {
	if len(segs) != 1 {
		return false
	}
	if _, obj := v.(map[string]any); !obj {
		return false
	}
	a, ok := aliases[segs[0]]
	if !ok {
		return false
	}
	_, ok = top[a[0]]
	return ok
}
