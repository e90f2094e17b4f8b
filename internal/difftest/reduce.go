package difftest

// Reduce shrinks a diverging sequence as pebble's metamorphic TryToReduce
// does: it removes chunks of ops (halves, then quarters, down to single
// ops) while the shorter sequence still ends in an unexplained divergence,
// and returns the smallest found, or nil if ops does not diverge. Every
// trial is a fresh run on both sides, so the result reproduces alone.
// Known entries named in skip count as unexplained.
func Reduce(o *Oracle, ops []Op, skip ...string) (*Divergence, error) {
	best, err := replay(o, ops, skip)
	if err != nil || best == nil || best.Known != "" {
		return best, err
	}
	cur := best.Ops
	for chunk := len(cur) / 2; chunk >= 1; chunk /= 2 {
		for start := 0; start < len(cur); {
			end := min(start+chunk, len(cur))
			trial := make([]Op, 0, len(cur)-(end-start))
			trial = append(trial, cur[:start]...)
			trial = append(trial, cur[end:]...)
			if len(trial) == 0 {
				start = end
				continue
			}
			d, err := replay(o, trial, skip)
			if err != nil {
				return nil, err
			}
			if d != nil && d.Known == "" {
				best, cur = d, d.Ops
				continue // the same start, on the shorter sequence
			}
			start = end
		}
	}
	return best, nil
}
