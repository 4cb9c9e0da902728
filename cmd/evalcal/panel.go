package main

import (
	"github.com/evalcal/evalcal/programs/panel"
	"github.com/evalcal/evalcal/runner"
)

// checkPanelSpec checks a panel spec (the text after "panel:") and each
// member's spec before any work. A member may not be a panel.
func checkPanelSpec(flag, rest string) error {
	members, _, err := panel.ParseSpec(rest)
	if err != nil {
		return usageErrorf("run: --%s: %w", flag, err)
	}
	for _, m := range members {
		if len(m) >= 6 && m[:6] == "panel:" {
			return usageErrorf("run: --%s: a panel member cannot be a panel, got %q", flag, m)
		}
		if err := checkSpec(flag, m); err != nil {
			return err
		}
	}
	return nil
}

// openPanel builds a panel from its spec, opening each member with open
// (so that one spec used twice is one inspector).
func openPanel(rest string, open func(string) (runner.Inspector, error)) (*panel.Inspector, error) {
	specs, agg, err := panel.ParseSpec(rest)
	if err != nil {
		return nil, usageErrorf("run: %w", err)
	}
	members := make([]runner.Inspector, 0, len(specs))
	for _, s := range specs {
		in, err := open(s)
		if err != nil {
			return nil, err
		}
		members = append(members, ownIdentity(in))
	}
	p, err := panel.New(agg, members)
	if err != nil {
		return nil, usageErrorf("run: %w", err)
	}
	return p, nil
}
