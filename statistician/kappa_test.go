package statistician

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func weightingByName(t *testing.T, name string) Weighting {
	t.Helper()
	for _, w := range []Weighting{Unweighted, Linear, Quadratic} {
		if w.String() == name {
			return w
		}
	}
	t.Fatalf("unknown weighting %q", name)
	return 0
}

func TestCohenKappaMatchesStatsmodels(t *testing.T) {
	// statsmodels cohens_kappa(table, wt=None/'linear'/'quadratic'):
	// .kappa and .std_kappa (Fleiss, Cohen and Everitt 1969); 1e-12.
	for _, c := range refs(t).CohenKappa {
		w := weightingByName(t, c.Weighting)
		got := CohenKappa(c.Table, w)
		what := fmt.Sprintf("CohenKappa(%s, %v)", c.Name, w)
		if got.Reason != "" {
			t.Fatalf("%s reason %q", what, got.Reason)
		}
		checkClose(t, what+".Value", got.Value, c.Kappa, 1e-12)
		checkClose(t, what+".SE", got.SE, c.SE, 1e-12)
		want := Interval{Lower: math.Max(-1, got.Value-Z95*got.SE), Upper: math.Min(1, got.Value+Z95*got.SE)}
		if d := cmp.Diff(want, got.CI95); d != "" {
			t.Errorf("%s.CI95 is not value ± Z95 SE clamped (-want +got):\n%s", what, d)
		}
	}
}

func TestCohenKappaHandWorked2x2(t *testing.T) {
	// [[20, 5], [10, 15]]: p_o = 0.7, margins rows (0.5, 0.5), columns
	// (0.6, 0.4), p_e = 0.5, kappa = 0.4. Fleiss-Cohen-Everitt by hand:
	// A = 0.4(1-(1.1)(0.6))^2 + 0.3(1-(0.9)(0.6))^2 = 0.10972,
	// off the diagonal p_ij (p_.i + p_j.)^2:
	// B = 0.36 (0.1 (0.6+0.5)^2 + 0.2 (0.4+0.5)^2) = 0.10188,
	// C = (0.4 - 0.5*0.6)^2 = 0.01, Var = (A+B-C)/(50 * 0.25) = 0.016128.
	got := CohenKappa([][]float64{{20, 5}, {10, 15}}, Unweighted)
	se := math.Sqrt(0.016128)
	want := Kappa{Value: 0.4, SE: se, CI95: Interval{Lower: 0.4 - Z95*se, Upper: 0.4 + Z95*se}, N: 50}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestCohenKappaDegenerateTables(t *testing.T) {
	oneCategory := [][]float64{{0, 0, 0}, {0, 0, 0}, {0, 0, 9}}
	perfect := [][]float64{{4, 0, 0}, {0, 0, 0}, {0, 0, 6}}
	for _, w := range []Weighting{Unweighted, Linear, Quadratic} {
		got := CohenKappa(oneCategory, w)
		want := Kappa{N: 9, Reason: "undefined: expected agreement is 1 (both raters used a single category)"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("CohenKappa(one category, %v) mismatch (-want +got):\n%s", w, d)
		}
		got = CohenKappa(perfect, w)
		want = Kappa{Value: 1, SE: 0, CI95: Interval{Lower: 1, Upper: 1}, N: 10}
		if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
			t.Errorf("CohenKappa(perfect over 2 categories, %v) mismatch (-want +got):\n%s", w, d)
		}
	}
	// Raw agreement and PABAK stay defined for the single-category table.
	po, err := RawAgreement(oneCategory)
	if err != nil || po != 1 {
		t.Errorf("RawAgreement(one category) = %v, %v; want 1", po, err)
	}
	pabak, err := PABAK(oneCategory)
	if err != nil || pabak != 1 {
		t.Errorf("PABAK(one category) = %v, %v; want 1", pabak, err)
	}
}

func TestCohenKappaInvalidTablesGiveReasons(t *testing.T) {
	for name, table := range map[string][][]float64{
		"empty":      nil,
		"not square": {{1, 2}, {3}},
		"negative":   {{1, -2}, {3, 4}},
		"NaN":        {{1, math.NaN()}, {3, 4}},
		"all zero":   {{0, 0}, {0, 0}},
	} {
		got := CohenKappa(table, Unweighted)
		if got.Reason == "" || got.Value != 0 || got.SE != 0 {
			t.Errorf("CohenKappa(%s) = %+v, want zero numbers and a reason", name, got)
		}
		if _, err := RawAgreement(table); err == nil {
			t.Errorf("RawAgreement(%s) returned no error", name)
		}
	}
	if got := CohenKappa([][]float64{{1, 2}, {3, 4}}, Weighting(7)); got.Reason == "" {
		t.Errorf("CohenKappa with an unknown weighting = %+v, want a reason", got)
	}
}

func TestPABAKHandWorked(t *testing.T) {
	// 3x3 with 30 of 40 on the diagonal: p_o = 0.75, PABAK = (3*0.75-1)/2.
	table := [][]float64{{10, 2, 1}, {3, 12, 2}, {0, 2, 8}}
	got, err := PABAK(table)
	if err != nil || math.Abs(got-0.625) > 1e-15 {
		t.Errorf("PABAK = %v, %v; want 0.625", got, err)
	}
	if _, err := PABAK([][]float64{{3}}); err == nil {
		t.Error("PABAK of a 1x1 table returned no error")
	}
}

func TestConfusionMatrixCountsPairs(t *testing.T) {
	// fail=0 < partial=1 < pass=2; rows light, columns deep.
	light := []int{0, 1, 2, 2, 1, 0, 2}
	deep := []int{0, 2, 2, 2, 1, 1, 0}
	got, err := ConfusionMatrix(light, deep, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 1, 0}, {0, 1, 1}, {1, 0, 2}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if _, err := ConfusionMatrix([]int{0, 3}, []int{0, 1}, 3); err == nil {
		t.Error("ConfusionMatrix accepted category 3 of 3")
	}
	if _, err := ConfusionMatrix([]int{0}, []int{0, 1}, 3); err == nil {
		t.Error("ConfusionMatrix accepted unequal lengths")
	}
}

func TestCohenKappaNeverAboveOneOnAllSmallTables(t *testing.T) {
	// Every 2x2 table with cells in 0..4 and every 3x3 table with cells
	// in {0, 1, 3}: kappa <= 1, SE >= 0, and no NaN.
	check := func(table [][]float64) {
		for _, w := range []Weighting{Unweighted, Linear, Quadratic} {
			k := CohenKappa(table, w)
			for _, v := range []float64{k.Value, k.SE, k.CI95.Lower, k.CI95.Upper} {
				if math.IsNaN(v) {
					t.Fatalf("CohenKappa(%v, %v) = %+v has NaN", table, w, k)
				}
			}
			if k.Value > 1 || k.Value < -1 || k.SE < 0 || (k.Reason == "" && !k.CI95.Contains(k.Value)) {
				t.Fatalf("CohenKappa(%v, %v) = %+v out of range", table, w, k)
			}
		}
	}
	for c := 0; c < 5*5*5*5; c++ {
		check([][]float64{{float64(c % 5), float64(c / 5 % 5)}, {float64(c / 25 % 5), float64(c / 125)}})
	}
	vals := []float64{0, 1, 3}
	for c := 0; c < 19683; c++ {
		table := [][]float64{make([]float64, 3), make([]float64, 3), make([]float64, 3)}
		x := c
		for i := 0; i < 9; i++ {
			table[i/3][i%3] = vals[x%3]
			x /= 3
		}
		check(table)
	}
}

func ExampleCohenKappa() {
	// Light verdicts (rows) against deep verdicts (columns), fail < partial
	// < pass. By hand p_o = 0.7, p_e = 0.4*0.4 + 0.6*0.5 = 0.46, so
	// kappa = 0.24/0.54 = 0.44 (statsmodels cohens_kappa agrees) and
	// PABAK = (3*0.7 - 1)/2 = 0.55.
	light := []int{0, 0, 0, 0, 1, 1, 1, 1, 1, 1}
	deep := []int{0, 0, 0, 1, 0, 1, 1, 1, 2, 1}
	table, err := ConfusionMatrix(light, deep, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := CohenKappa(table, Unweighted)
	pabak, _ := PABAK(table)
	fmt.Printf("kappa %.2f, PABAK %.2f, n %d\n", k.Value, pabak, k.N)
	one := CohenKappa([][]float64{{0, 0}, {0, 5}}, Unweighted)
	fmt.Println(one.Reason)
	// Output:
	// kappa 0.44, PABAK 0.55, n 10
	// undefined: expected agreement is 1 (both raters used a single category)
}
