// Child process of the store benchmark's scale section: iterBlocks over one carray while watching
// the resident set. Usage: node store-rss-child.mjs <carray directory>. Prints one JSON line:
// { rows, bytes, sum, baselineMiB, peakMiB, peakSource, sampledPeakMiB, maxRssMiB } or { error }.
//
// Baseline: RSS after loading @fmt/store and the file-system store (and a GC when --expose-gc is
// on), before opening the carray. Peak: the kernel's high-water mark of this process (VmHWM),
// reset to the current RSS at the baseline through /proc/self/clear_refs, and the largest RSS
// sampled after each block. process.resourceUsage().maxRSS is no use here: Linux carries the
// high-water mark of the process that forked the child (the bench, holding hundreds of MB) across
// exec. Where the reset is not possible, maxRSS is the peak (it can only overstate).
import { readFileSync, writeFileSync } from "node:fs";

import { loadStore } from "./store-ours.mjs";

/** Resets the kernel's peak-RSS mark to the current RSS (Linux ≥ 4.0); false when not possible. */
function resetPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** VmHWM of /proc/self/status in bytes, or undefined. */
function highWaterMark() {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const MiB = 2 ** 20;

async function main() {
  const dir = process.argv[2];
  const lib = await loadStore();
  if (!lib.loaded) throw new Error(`@fmt/store could not be imported (${lib.error})`);
  globalThis.gc?.();
  const reset = resetPeak();
  const baseline = process.memoryUsage.rss();
  let sampled = baseline;
  const array = await lib.store.openCarray(new lib.FileSystemStore(dir));
  let bytes = 0;
  let sum = 0;
  for await (const { bytes: block } of array.iterBlocks()) {
    bytes += block.length;
    // Touch every value (a sum per block in order; the parent compares with numpy's within rounding).
    const aligned = block.byteOffset % 8 === 0 ? block : block.slice();
    const values = new Float64Array(aligned.buffer, aligned.byteOffset, aligned.length / 8);
    let s = 0;
    for (let i = 0; i < values.length; i++) s += values[i];
    sum += s;
    const rss = process.memoryUsage.rss();
    if (rss > sampled) sampled = rss;
  }
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const hwm = reset ? highWaterMark() : undefined;
  const peak = hwm ?? maxRss;
  const peakSource = hwm !== undefined ? "VmHWM" : "maxRSS";
  process.stdout.write(`${JSON.stringify({ rows: array.length, bytes, sum, baselineMiB: baseline / MiB, peakMiB: Math.max(peak, sampled) / MiB, peakSource, sampledPeakMiB: sampled / MiB, maxRssMiB: maxRss / MiB })}\n`);
}

main().catch((error) => {
  process.stdout.write(`${JSON.stringify({ error: String(error?.message ?? error).split("\n")[0] })}\n`);
  process.exitCode = 1;
});
