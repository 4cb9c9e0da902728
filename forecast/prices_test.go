package forecast

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readPricesString(t *testing.T, s string) (*Prices, []BadLine) {
	t.Helper()
	p, bad, err := ReadPrices(context.Background(), strings.NewReader(s), "prices")
	if err != nil {
		t.Fatal(err)
	}
	return p, bad
}

func TestReadPricesCSVWithHeaderInAnyOrder(t *testing.T) {
	p, bad := readPricesString(t, "price,pool,ts\n"+
		"101.5,ETH,2026-01-02T00:00:00Z\n"+
		"99,ETH,2026-01-01T23:00:00Z\r\n"+
		"7,\"BTC, wrapped\",2026-01-02T00:00:00Z\n"+
		"\n"+
		"x,ETH,2026-01-02T00:00:00Z\n"+
		"-3,ETH,2026-01-02T00:00:00Z\n"+
		"5,ETH,noon\n"+
		"5,,2026-01-02T00:00:00Z\n"+
		"5,ETH\n")
	if p.Len() != 3 {
		t.Errorf("Len = %d, want 3", p.Len())
	}
	got, ok := p.First("ETH", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC))
	if !ok || got.Price != 99 {
		t.Errorf("First ETH = %v %v, want the earlier 99 (input was out of order)", got, ok)
	}
	if _, ok := p.First("BTC, wrapped", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 1, 0, time.UTC)); !ok {
		t.Error("quoted pool name not read")
	}
	var fields []string
	for _, b := range bad {
		fields = append(fields, fmt.Sprintf("%s:%d:%s", b.File, b.Line, b.Field))
	}
	want := []string{"prices:6:price", "prices:7:price", "prices:8:ts", "prices:9:pool", "prices:10:line"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("bad lines (-want +got):\n%s", diff)
	}
}

func TestReadPricesJSONL(t *testing.T) {
	p, bad := readPricesString(t, `{"pool":"ETH","ts":"2026-01-01T00:00:00Z","price":3}
{"pool":"ETH","ts":"2026-01-01T00:00:00Z","price":"3"}
{"pool":"ETH","price":3}
`)
	if p.Len() != 1 || len(bad) != 2 || bad[0].Field != "price" || bad[1].Field != "ts" {
		t.Errorf("Len %d, bad %+v; want 1 price, bad price and ts fields", p.Len(), bad)
	}
}

func TestReadPricesRejectsHeaderWithoutColumns(t *testing.T) {
	_, _, err := ReadPrices(context.Background(), strings.NewReader("ETH,2026-01-01T00:00:00Z,3\n"), "p.csv")
	if err == nil || !strings.Contains(err.Error(), "pool, ts and price") {
		t.Errorf("err = %v, want a header error", err)
	}
}

func TestPricesFirstWithoutSortScansLinearly(t *testing.T) {
	p := NewPrices()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.Add("A", base.Add(2*time.Hour), 2)
	p.Add("A", base.Add(time.Hour), 1)
	got, ok := p.First("A", base, base.Add(3*time.Hour))
	if !ok || got.Price != 1 {
		t.Errorf("unsorted First = %v, want price 1", got)
	}
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("pool,ts,price\nETH,2026-01-01T00:00:00Z,3\n"))
	f.Add([]byte("{\"pool\":\"ETH\",\"ts\":\"2026-01-01T00:00:00Z\",\"price\":3}\n{}\n"))
	f.Add([]byte("ts,price,pool\n\"a,2026\n,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, bad, err := ReadPrices(context.Background(), strings.NewReader(string(data)), "f")
		if err != nil {
			return
		}
		for _, b := range bad {
			if b.Line < 1 || b.Field == "" {
				t.Fatalf("bad line without position or field: %+v", b)
			}
		}
		for pool, s := range p.pools {
			for i := 1; i < len(s); i++ {
				if s[i].ts < s[i-1].ts {
					t.Fatalf("pool %q not sorted", pool)
				}
			}
		}
	})
}
