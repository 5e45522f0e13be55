// One stop rule for every implementation, mirrored in native.py's measure(): keep repeating until
// the repetitions reach `minReps` and their total reaches `minTime` seconds, or until `maxReps`.
// The best (shortest) repetition is reported, as the least disturbed by the rest of the machine.

/** Timing profiles by run mode; see README "Timing". */
export const TIMING = {
  // "until >= 0.3 s or 3 repetitions": fast configs get 3 repetitions, slow ones as many as fit in 0.3 s (at least 1).
  default: { minReps: 3, minTime: 0.5, maxReps: 30 },
  quick: { minReps: 1, minTime: 0.3, maxReps: 3 },
  // Both conditions, for steadier numbers when there is time.
  full: { minReps: 3, minTime: 1.0, maxReps: 100 },
};

/**
 * Time `fn` (sync or async) under the stop rule and return `{ best, reps }`, seconds.
 * @param {() => unknown} fn
 * @param {{minReps: number, minTime: number, maxReps: number}} timing
 */
export async function measure(fn, timing) {
  let best = Infinity;
  let total = 0;
  let reps = 0;
  for (;;) {
    const t0 = performance.now();
    const pending = fn();
    if (pending && typeof pending.then === "function") await pending;
    const dt = (performance.now() - t0) / 1000;
    best = Math.min(best, dt);
    total += dt;
    reps += 1;
    if ((reps >= timing.minReps && total >= timing.minTime) || reps >= timing.maxReps) return { best, reps };
  }
}
