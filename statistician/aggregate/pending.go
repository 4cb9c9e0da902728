package aggregate

import "github.com/evalcal/evalcal/comparator"

func clusteredAgreement(cs []comparator.Comparison) ClusteredRate {
	return ClusteredRate{N: len(cs), Reason: "pending"}
}

func leniency(cs []comparator.Comparison) Leniency { return Leniency{N: len(cs), Direction: Balanced} }

func estimate(in Input) Estimate { return Estimate{} }

func repeatability(rs []RunRepeats) Repeatability { return Repeatability{} }
