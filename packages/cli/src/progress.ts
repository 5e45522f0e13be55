/**
 * A progress bar on stderr for long work, shown only when both stdout and stderr are terminals
 * (quiet when piped or redirected).
 */
import cliProgress from "cli-progress";

/**
 * A started-or-not progress indicator.
 *
 * @example
 * ```ts
 * const p: Progress = makeProgress("chunks", true);
 * ```
 */
export interface Progress {
  /** Sets the total amount of work and shows the bar. */
  start(total: number): void;
  /** Advances by one unit. */
  tick(): void;
  /** Removes the bar. */
  stop(): void;
}

/**
 * A progress bar when the terminal shows one (`enabled` and both streams are TTYs), else a
 * no-op.
 *
 * @example
 * ```ts
 * const p = makeProgress("chunks", true);
 * p.start(10); p.tick(); p.stop();
 * ```
 */
export function makeProgress(label: string, enabled: boolean): Progress {
  if (!enabled || process.stderr.isTTY !== true || process.stdout.isTTY !== true) return { start: () => {}, tick: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar({ format: `${label} [{bar}] {value}/{total} {percentage}%`, stream: process.stderr, clearOnComplete: true, hideCursor: true }, cliProgress.Presets.shades_classic);
  let started = false;
  return {
    start(total: number): void {
      bar.start(total, 0);
      started = true;
    },
    tick(): void {
      if (started) bar.increment();
    },
    stop(): void {
      if (started) bar.stop();
      started = false;
    },
  };
}
