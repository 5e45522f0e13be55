/**
 * The chunks a strided selection touches, computed from the selection alone so that the work
 * follows the rows selected, never the length `meta/sizes` claims (issue 9, item 2: a claimed
 * length of 10^15 with step 10^15 − 1 selects two rows in two chunks).
 */

/**
 * Number of rows `start, start + step, …` below `stop` (0 when `stop <= start`).
 *
 * @example
 * ```ts
 * selectedCount(0, 10, 3); // 4: rows 0, 3, 6, 9
 * ```
 */
export function selectedCount(start: number, stop: number, step: number): number {
  return stop <= start ? 0 : Math.ceil((stop - start) / step);
}

/**
 * Indices of the chunks (of `chunklen` rows) that hold at least one of the rows `start,
 * start + step, …, lastRow`, ascending, each once. Lazy, and it yields at most one index more
 * than the number of selected rows: with `step >= chunklen` every selected row lies in a chunk
 * of its own; with a smaller step every chunk between the first and the last holds one.
 *
 * @example
 * ```ts
 * [...selectedChunks(0, 999_999_999_999, 999_999_999_999, 1000)]; // [0, 999999999]
 * [...selectedChunks(5, 2005, 500, 1000)];                          // [0, 1, 2]
 * ```
 */
export function* selectedChunks(start: number, lastRow: number, step: number, chunklen: number): Generator<number, void, undefined> {
  if (lastRow < start) return;
  if (step >= chunklen) {
    for (let row = start; row <= lastRow; row += step) yield Math.floor(row / chunklen);
    return;
  }
  const last = Math.floor(lastRow / chunklen);
  for (let k = Math.floor(start / chunklen); k <= last; k++) yield k;
}

/**
 * Number of chunk files a read of rows `start, start + step, …` below `stop` touches (what
 * {@link selectedChunks} would yield), computed without iterating.
 *
 * @example
 * ```ts
 * chunksTouched(0, 1e15, 1e15 - 1, 1000); // 2
 * chunksTouched(150, 450, 1, 100);        // 4 (chunks 1, 2, 3, 4)
 * ```
 */
export function chunksTouched(start: number, stop: number, step: number, chunklen: number): number {
  const count = selectedCount(start, stop, step);
  if (count === 0) return 0;
  if (step >= chunklen) return count;
  const lastRow = start + (count - 1) * step;
  return Math.floor(lastRow / chunklen) - Math.floor(start / chunklen) + 1;
}
