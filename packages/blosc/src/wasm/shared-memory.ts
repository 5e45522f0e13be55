/**
 * The kernels module with its memory declared shared: the same code, whose memory is a
 * `SharedArrayBuffer` that another thread can read without a transfer. Format-2 readers read
 * runs of chunks into such a memory, have their checksums computed on another thread from it,
 * and decode them where they lie (an ordinary WebAssembly memory cannot be transferred, so the
 * checksum thread could not be given the run). Only the memory section of the module changes:
 * its limits get the shared flag and a maximum (a shared memory must have one); no instruction
 * of the module depends on whether its memory is shared.
 *
 * @example
 * ```ts
 * const shared = withSharedMemory(kernelsWasmBytes); // undefined for a module it cannot rewrite
 * ```
 * @module
 */

/** The largest memory a shared instance may grow to: 65,536 pages of 64 KiB (4 GiB), wasm32's limit. */
const MAX_PAGES = 65536;

function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let next = at;
  for (;;) {
    if (next >= bytes.length || shift > 28) throw new Error("truncated LEB128");
    const byte = bytes[next++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next };
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest % 128;
    rest = Math.floor(rest / 128);
    out.push(rest > 0 ? byte | 0x80 : byte);
  } while (rest > 0);
  return out;
}

/**
 * `module` (WebAssembly binary bytes) with its one defined memory declared shared, with a maximum
 * of 4 GiB unless it declares a smaller one; `undefined` when the module imports its memory,
 * defines none or several, or is already shared (nothing to rewrite). @internal
 *
 * @example
 * ```ts
 * const bytes = withSharedMemory(decodeBase64(KERNELS_WASM_BASE64));
 * ```
 */
export function withSharedMemory(module: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
  try {
    const parts: Uint8Array[] = [module.subarray(0, 8)];
    let at = 8;
    let rewritten = false;
    while (at < module.length) {
      const start = at;
      const id = module[at]!;
      const size = readLeb(module, at + 1);
      const end = size.next + size.value;
      if (end > module.length) return undefined;
      if (id === 5) {
        // The memory section: a count, then one memory's limits (flags, min[, max]).
        const count = readLeb(module, size.next);
        if (count.value !== 1) return undefined;
        const flags = module[count.next]!;
        if (flags !== 0 && flags !== 1) return undefined;
        const min = readLeb(module, count.next + 1);
        const max = flags === 1 ? readLeb(module, min.next) : { value: MAX_PAGES, next: min.next };
        if (max.next !== end) return undefined;
        const body = [1, 3, ...leb(min.value), ...leb(Math.min(max.value, MAX_PAGES))];
        parts.push(Uint8Array.from([5, ...leb(body.length), ...body]));
        rewritten = true;
      } else {
        // A module that imports a memory would be given one by its host: not rewritten here.
        if (id === 2 && importsMemory(module.subarray(size.next, end))) return undefined;
        parts.push(module.subarray(start, end));
      }
      at = end;
    }
    if (!rewritten) return undefined;
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Whether an import section imports a memory (import kind 2). */
function importsMemory(section: Uint8Array): boolean {
  const count = readLeb(section, 0);
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    for (let name = 0; name < 2; name++) {
      const length = readLeb(section, at);
      at = length.next + length.value;
    }
    const kind = section[at++]!;
    if (kind === 2) return true;
    if (kind === 0) at = readLeb(section, at).next; // a function: its type index
    else if (kind === 1) {
      at++; // a table: its element type, then limits
      const flags = section[at++]!;
      at = readLeb(section, at).next;
      if (flags & 1) at = readLeb(section, at).next;
    } else if (kind === 3) at += 2; // a global: value type and mutability
    else return true; // an import this reader does not know: treat the module as not rewritable
  }
  return false;
}
