package main

import "strings"

// validateClusters checks --cluster, --family and --judge-family and
// fills o.families.
func (o *runOptions) validateClusters() error {
	if o.clusterGiven && (o.Cluster == "" || strings.TrimSpace(o.Cluster) != o.Cluster) {
		return usageErrorf("run: --cluster: cannot cluster by %q: give system or a metadata field name", o.Cluster)
	}
	if strings.TrimSpace(o.JudgeFamily) != o.JudgeFamily || (o.JudgeFamily == "" && o.jfGiven) {
		return usageErrorf("run: --judge-family must be a family name without surrounding space, got %q", o.JudgeFamily)
	}
	for _, f := range o.Families {
		sys, fam, ok := strings.Cut(f, "=")
		sys, fam = strings.TrimSpace(sys), strings.TrimSpace(fam)
		if !ok || sys == "" || fam == "" {
			return usageErrorf("run: --family must be SYSTEM=FAMILY, got %q", f)
		}
		if o.families == nil {
			o.families = map[string]string{}
		}
		if prev, dup := o.families[sys]; dup && prev != fam {
			return usageErrorf("run: --family gives system %q two families, %q and %q", sys, prev, fam)
		}
		o.families[sys] = fam
	}
	return nil
}
