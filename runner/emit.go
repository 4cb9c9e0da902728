package runner

import "github.com/evalcal/evalcal/inspection"

// The runs' outcomes become the Result in input order: as they finish
// when Options.OnPair takes the pairs (finished), else all at the end
// (result). A finished run is emitted once every run before it is: the
// calls path keeps lights at most Jobs runs ahead of their deeps, so few
// runs wait.

// finished marks run i done (every call of it has ended, or it was cut
// short) and, with OnPair, emits every run from the first not yet
// emitted while they are done.
func (p *pipeline) finished(i int) {
	if p.opts.OnPair == nil {
		return
	}
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	p.outcomes[i].done = true
	for p.emitted < len(p.outcomes) && p.outcomes[p.emitted].done {
		p.emit(p.emitted)
		p.emitted++
	}
}

// emit adds run i's outcome to the Result: a pair (to OnPair when set),
// a light-only run, an unpaired inspection, its failures, and lets go of
// its inspections. Called in input order, under emitMu.
func (p *pipeline) emit(i int) {
	o, res, run := &p.outcomes[i], &p.res, p.runs.At(i)
	if o.interrupted {
		res.Interrupted++
	}
	res.Failures = append(res.Failures, o.failures...)
	light, deep := o.insp[0], o.insp[1]
	switch {
	case len(light) > 0 && len(deep) > 0:
		pr := Pair{Run: run, Light: inspection.Consolidate(light), Deep: inspection.Consolidate(deep)}
		if p.opts.Repeat > 1 {
			pr.LightRepeats, pr.DeepRepeats = light, deep
		}
		res.Paired++
		if p.opts.OnPair != nil {
			p.opts.OnPair(pr)
		} else {
			res.Pairs = append(res.Pairs, pr)
		}
	case len(light) > 0 && o.deepSkipped:
		lr := LightRun{Run: run, Light: inspection.Consolidate(light)}
		if p.opts.Repeat > 1 {
			lr.LightRepeats = light
		}
		res.LightOnly = append(res.LightOnly, lr)
	case len(light) > 0:
		res.Unpaired = append(res.Unpaired, inspection.Consolidate(light))
	case len(deep) > 0:
		res.Unpaired = append(res.Unpaired, inspection.Consolidate(deep))
	}
	*o = runOutcome{done: true}
}
