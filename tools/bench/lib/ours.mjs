// What @fmt/blosc offers at run time. The package grows while the bench exists (decompress first,
// then compress, then a worker pool), so every capability is looked up, never assumed; a missing
// one becomes an "n/a (not implemented)" cell, never a number.

const POOL_SUBPATHS = ["@fmt/blosc", "@fmt/blosc/node", "@fmt/blosc/pool", "@fmt/blosc/worker", "@fmt/blosc/workers"];
const POOL_FACTORY_NAMES = ["createBloscPool", "createWorkerPool", "createPool", "createDecompressPool"];

/**
 * Import @fmt/blosc and describe it.
 * @returns {Promise<{loaded: boolean, error?: string, exportsList: string[], decompress?: Function,
 *   decompressInto?: Function, compress?: Function, pool?: {source: string, name: string, open: (threads: number) => Promise<object>}}>}
 */
export async function loadOurs() {
  let mod;
  try {
    mod = await import("@fmt/blosc");
  } catch (error) {
    return { loaded: false, error: firstLine(error), exportsList: [] };
  }
  const fn = (name) => (typeof mod[name] === "function" ? mod[name] : undefined);
  // Initialise as an application would before writing (zstd's encoder loads asynchronously) and
  // before decoding on a browser-like main thread; neither is timed.
  try {
    if (fn("initCompression")) await mod.initCompression();
    if (fn("initBlosc")) await mod.initBlosc();
  } catch (error) {
    return { loaded: false, error: `initialisation failed: ${firstLine(error)}`, exportsList: Object.keys(mod).sort() };
  }
  const ours = {
    loaded: true,
    exportsList: Object.keys(mod).sort(),
    decompress: fn("decompress"),
    decompressInto: fn("decompressInto"),
    compress: fn("compress"),
  };
  ours.pool = await findPool(mod);
  return ours;
}

async function findPool(rootModule) {
  for (const source of POOL_SUBPATHS) {
    let mod = rootModule;
    if (source !== "@fmt/blosc") {
      try {
        mod = await import(source);
      } catch {
        continue;
      }
    }
    for (const name of POOL_FACTORY_NAMES) {
      if (typeof mod[name] === "function") return { source, name, open: (threads) => openPool(() => mod[name]({ threads })) };
    }
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === "function" && /Pool$/.test(name) && /^[A-Z]/.test(name)) {
        return { source, name, open: (threads) => openPool(() => new value({ threads })) };
      }
    }
  }
  return undefined;
}

async function openPool(make) {
  const pool = await make();
  if (!pool || typeof pool.decompress !== "function") {
    throw new Error(`pool has no decompress method (has: ${Object.keys(pool ?? {}).join(", ")})`);
  }
  return {
    decompress: typeof pool.decompressManyInto === "function" ? batchedIntoReusedBuffer(pool) : (chunk) => pool.decompress(chunk),
    compress: typeof pool.compress === "function" ? (data, options) => pool.compress(data, options) : undefined,
    async close() {
      for (const method of ["close", "terminate", "destroy"]) {
        if (typeof pool[method] === "function") return void (await pool[method]());
      }
    },
  };
}

// Like the single-threaded "dec ours" cell (decompressInto into one reused buffer): the calls of one
// tick are gathered into one decompressManyInto over a reused SharedArrayBuffer, so workers write
// straight into it. A result stays valid until the next tick's batch overwrites the buffer, which is
// all the bench needs (verification awaits each chunk; timing drops the results).
function batchedIntoReusedBuffer(pool) {
  let out = new Uint8Array(0);
  let batch = [];
  return (chunk) => new Promise((resolve, reject) => {
    batch.push({ chunk, resolve, reject });
    if (batch.length > 1) return;
    queueMicrotask(() => {
      const jobs = batch;
      batch = [];
      let total = 0;
      for (const { chunk: c } of jobs) total += new DataView(c.buffer, c.byteOffset, c.byteLength).getUint32(4, true);
      if (out.length < total) out = new Uint8Array(new SharedArrayBuffer(total));
      pool.decompressManyInto(jobs.map((j) => j.chunk), out).then(
        (views) => views.forEach((v, i) => jobs[i].resolve(v)),
        (error) => { for (const j of jobs) j.reject(error); },
      );
    });
  });
}

/** The first line of an error message, for a table cell or a log line. */
export function firstLine(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split("\n")[0].slice(0, 160);
}
