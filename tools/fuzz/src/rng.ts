/**
 * A small seeded pseudo-random generator (mulberry32). Every fuzz input is derived from
 * (run seed, target name, input index) alone, so any input of a run can be regenerated exactly
 * from those three values, in the worker that ran it or in the process that reports it.
 *
 * @example
 * ```ts
 * const rng = inputRng(1, "dtype", 42);
 * rng.below(10); // the same number for every run with seed 1
 * ```
 */
export class Rng {
  #state: number;

  /** Starts the sequence at `seed` (any 32-bit integer). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next 32-bit unsigned integer. */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in `[0, n)`; 0 when `n <= 0`. */
  below(n: number): number {
    if (n <= 1) return 0;
    return n <= 0x100000000 ? this.next() % n : Math.floor((this.next() / 0x100000000) * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x01000193) >>> 0;
  return (h ^ (h >>> 13)) >>> 0;
}

/**
 * The generator of one input: a hash of the run seed, target name and input index.
 *
 * @example
 * ```ts
 * const bytes = new Uint8Array(4).map(() => inputRng(7, "blpk-header", 0).below(256));
 * ```
 */
export function inputRng(seed: number, target: string, index: number): Rng {
  let h = 0x811c9dc5;
  h = mix(h, seed >>> 0);
  h = mix(h, Math.floor(seed / 0x100000000) >>> 0);
  for (let i = 0; i < target.length; i++) h = mix(h, target.charCodeAt(i));
  h = mix(h, index >>> 0);
  h = mix(h, Math.floor(index / 0x100000000) >>> 0);
  return new Rng(h);
}
