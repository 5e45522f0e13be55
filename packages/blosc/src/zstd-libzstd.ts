/**
 * Direct glue to the libzstd WebAssembly module inside `@hpcc-js/wasm-zstd`. That package's own
 * `compress` returns its result through `new Uint8Array([...view])`, a JavaScript array of one
 * number per output byte, which makes it about 15× slower than the compressor itself on Blosc
 * blocks (which barely shrink). The module under it exports libzstd's one-shot `compress` and its
 * heap; this adapter copies the block into the heap once, lets libzstd write straight into a
 * reused output area capped at the caller's room (as c-blosc caps it at the split size), and copies
 * the frame out with one `set`. When the package's internals do not have the expected shape (a
 * future release), the adapter uses the public `compress`.
 *
 * @example
 * ```ts
 * import { Zstd } from "@hpcc-js/wasm-zstd";
 * const encoder = libzstdEncoder(await Zstd.load());
 * const written = encoder.compressInto(block, room, 9);
 * ```
 * @module
 */

/**
 * What this package needs of a zstd encoder.
 *
 * @example
 * ```ts
 * const encoder: ZstdEncoder = await loadZstdEncoder();
 * encoder.compress(bytes, 3);
 * ```
 */
export interface ZstdEncoder {
  /** One zstd frame with the content size in its header, like `ZSTD_compress`. */
  compress(data: Uint8Array, level: number): Uint8Array;
  /**
   * The same frame written into `dst`; returns its length, or 0 when it does not fit (then the
   * caller stores the block raw, as c-blosc does when zstd reports `dstSize_tooSmall`).
   */
  compressInto?(data: Uint8Array, dst: Uint8Array, level: number): number;
}

interface HeapModule {
  _malloc(size: number): number;
  _free(pointer: number): void;
  HEAPU8: Uint8Array;
}

interface ZstdStatics {
  compress(dst: number, capacity: number, src: number, size: number, level: number): number;
  isError(code: number): boolean;
}

function hasFunctions(value: unknown, names: readonly string[]): boolean {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  return names.every((name) => typeof Reflect.get(value, name) === "function");
}

function isHeapModule(value: unknown): value is HeapModule {
  return hasFunctions(value, ["_malloc", "_free"]) && Reflect.get(value as object, "HEAPU8") instanceof Uint8Array;
}

function isZstdStatics(value: unknown): value is ZstdStatics {
  return hasFunctions(value, ["compress", "isError"]);
}

/** A heap allocation the adapter keeps and grows, so blocks do not pay for malloc and free. */
interface Area {
  pointer: number;
  size: number;
}

/**
 * Wrap a loaded `@hpcc-js/wasm-zstd` `Zstd` instance. Each wrapper owns its scratch areas in the
 * module's heap; nothing is shared between wrappers.
 *
 * @param instance - the resolved value of `Zstd.load()`.
 * @returns an encoder whose `compressInto` writes straight into the caller's buffer.
 * @example
 * ```ts
 * const encoder = libzstdEncoder(await Zstd.load());
 * encoder.compress(new Uint8Array(4096), 1).length; // a few dozen bytes
 * ```
 */
export function libzstdEncoder(instance: { compress(data: Uint8Array, level: number): Uint8Array }): Required<ZstdEncoder> {
  const main: unknown = Reflect.get(instance, "_mainModule");
  const heapModule: unknown = main === undefined || main === null ? undefined : Reflect.get(main, "_module");
  const statics: unknown = Reflect.get(instance, "_zstdClass");
  if (!isHeapModule(heapModule) || !isZstdStatics(statics)) {
    return {
      compress: (data, level) => instance.compress(data, level),
      compressInto: (data, dst, level) => {
        const frame = instance.compress(data, level);
        if (frame.length > dst.length) return 0;
        dst.set(frame);
        return frame.length;
      },
    };
  }
  const input: Area = { pointer: 0, size: 0 };
  const output: Area = { pointer: 0, size: 0 };
  const reserve = (area: Area, size: number): number => {
    if (area.size < size) {
      if (area.size > 0) heapModule._free(area.pointer);
      area.size = 0;
      const pointer = heapModule._malloc(size);
      if (pointer === 0) throw new RangeError(`libzstd heap cannot hold ${size} bytes`);
      area.pointer = pointer;
      area.size = size;
    }
    return area.pointer;
  };
  const compressInto = (data: Uint8Array, dst: Uint8Array, level: number): number => {
    const src = reserve(input, Math.max(1, data.length));
    const out = reserve(output, Math.max(1, dst.length));
    // the heap may have grown (and been replaced) during the reservations
    heapModule.HEAPU8.set(data, src);
    const written = statics.compress(out, dst.length, src, data.length, level);
    if (statics.isError(written)) return 0;
    dst.set(heapModule.HEAPU8.subarray(out, out + written));
    return written;
  };
  return {
    compressInto,
    compress: (data, level) => {
      // ZSTD_compressBound: size + size/256 + a margin for small inputs
      const room = new Uint8Array(data.length + (data.length >> 8) + 64 + (data.length < 128 * 1024 ? (128 * 1024 - data.length) >> 11 : 0));
      const written = compressInto(data, room, level);
      return room.slice(0, written);
    },
  };
}
