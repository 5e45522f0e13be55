/**
 * A byte-removal minimizer: shrinks an input while a predicate (the finding still reproduces)
 * holds, first dropping whole files, then removing byte ranges of halving size from each file.
 *
 * @example
 * ```ts
 * const { input } = await minimizeInput(found, async (i) => (await worker.replay(i)).kind === "hang", 40);
 * ```
 * @packageDocumentation
 */
import type { FuzzInput } from "./input.js";

/**
 * Result of {@link minimizeInput}.
 *
 * @example
 * ```ts
 * console.log(`${result.tries} replays`);
 * ```
 */
export interface Minimized {
  input: FuzzInput;
  /** How many candidates were tested. */
  tries: number;
}

/**
 * Shrinks `input` with at most `maxTries` calls of `reproduces` (the original input is assumed
 * to reproduce and is not tested). Returns the smallest input found that reproduced.
 *
 * @example
 * ```ts
 * const r = await minimizeInput(new Map([["input", bytes]]), async (i) => i.get("input")!.includes(0xff), 500);
 * ```
 */
export async function minimizeInput(input: FuzzInput, reproduces: (candidate: FuzzInput) => Promise<boolean>, maxTries: number): Promise<Minimized> {
  let best = new Map(input);
  let tries = 0;
  const attempt = async (candidate: FuzzInput): Promise<boolean> => {
    if (tries >= maxTries) return false;
    tries++;
    if (await reproduces(candidate)) {
      best = candidate;
      return true;
    }
    return false;
  };
  if (best.size > 1) {
    for (const key of [...best.keys()]) {
      const candidate = new Map(best);
      candidate.delete(key);
      await attempt(candidate);
    }
  }
  for (const key of [...best.keys()]) {
    let size = Math.max(1, best.get(key)!.length >> 1);
    for (;;) {
      let at = 0;
      while (at < best.get(key)!.length && tries < maxTries) {
        const bytes = best.get(key)!;
        const shorter = new Uint8Array(bytes.length - Math.min(size, bytes.length - at));
        shorter.set(bytes.subarray(0, at), 0);
        shorter.set(bytes.subarray(at + size), at);
        const candidate = new Map(best);
        candidate.set(key, shorter);
        // On success the same position now holds the next bytes: try removing there again.
        if (!(await attempt(candidate))) at += size;
      }
      if (size === 1 || tries >= maxTries) break;
      size >>= 1;
    }
  }
  return { input: best, tries };
}
