/**
 * Loading the kernels: kernels.wasm is decoded from its inlined base64, checked once for
 * WebAssembly SIMD, compiled once, and instantiated into a fresh `WasmKernels` (own memory) per
 * call, synchronously ({@link loadWasmKernels}) or asynchronously ({@link initWasmKernels}).
 * Browser-safe: no `node:` imports, no `Buffer`, no `fetch`.
 *
 * @example
 * ```ts
 * import { initWasmKernels } from "./load.js";
 * const kernels = await initWasmKernels(); // undefined without WebAssembly SIMD
 * ```
 * @module
 */
import { UsageError } from "@fmt/errors";
import { WasmKernels } from "./kernels.js";
import { KERNELS_WASM_BASE64 } from "./kernels.generated.js";
import { withSharedMemory } from "./shared-memory.js";

/**
 * Decode standard base64 (with or without `=` padding). Written here because `atob` is missing in
 * some workers and `Buffer` is Node-only.
 *
 * @param text - base64 text without whitespace.
 * @returns the decoded bytes.
 * @example
 * ```ts
 * decodeBase64("AGFzbQ=="); // Uint8Array [0, 97, 115, 109]
 * ```
 */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const lookup = new Uint8Array(128).fill(255);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) lookup[alphabet.charCodeAt(i)] = i;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  const out = new Uint8Array(Math.floor((end * 6) / 8));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? (lookup[c] ?? 255) : 255;
    if (v === 255) throw new UsageError("INVALID_ARGUMENT", "not base64 text", { field: "base64", actual: text[i] });
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

let cachedModule: WebAssembly.Module | undefined;
let simdUnsupported = false;

function moduleBytes(): Uint8Array<ArrayBuffer> | undefined {
  if (simdUnsupported || typeof WebAssembly !== "object") return undefined;
  const bytes = decodeBase64(KERNELS_WASM_BASE64);
  if (!WebAssembly.validate(bytes)) {
    // The only feature the module needs beyond WebAssembly 1.0 is SIMD (plus bulk memory).
    simdUnsupported = true;
    return undefined;
  }
  return bytes;
}

/**
 * Instantiate the kernels synchronously (fine in Node and in workers; browsers' main threads
 * refuse synchronous compilation of modules this size, use {@link initWasmKernels} there).
 * Each call returns a fresh instance with its own memory; the compiled module is cached.
 *
 * @returns the kernels, or `undefined` when WebAssembly SIMD is unavailable.
 * @example
 * ```ts
 * const kernels = loadWasmKernels();
 * const data = kernels?.unshuffle(planes, 8) ?? unshuffleInTypeScript(planes, 8);
 * ```
 */
export function loadWasmKernels(): WasmKernels | undefined {
  try {
    if (cachedModule === undefined) {
      const bytes = moduleBytes();
      if (bytes === undefined) return undefined;
      cachedModule = new WebAssembly.Module(bytes);
    }
    return new WasmKernels(new WebAssembly.Instance(cachedModule, {}));
  } catch {
    return undefined;
  }
}

let sharedModule: WebAssembly.Module | null | undefined;

/**
 * A fresh instance of the kernels whose memory is a `SharedArrayBuffer` (the same code, see
 * `withSharedMemory`), for readers that let another thread read the chunks they read into it;
 * `undefined` where shared memory is unavailable (a browser page that is not cross-origin
 * isolated) or WebAssembly SIMD is. Synchronous, as {@link loadWasmKernels}. @internal
 *
 * @example
 * ```ts
 * const kernels = loadSharedWasmKernels(); // its memory's buffer is a SharedArrayBuffer
 * ```
 */
export function loadSharedWasmKernels(): WasmKernels | undefined {
  if (sharedModule === null || typeof SharedArrayBuffer === "undefined") return undefined;
  try {
    if (sharedModule === undefined) {
      const bytes = moduleBytes();
      const shared = bytes === undefined ? undefined : withSharedMemory(bytes);
      if (shared === undefined || !WebAssembly.validate(shared)) {
        sharedModule = null;
        return undefined;
      }
      try {
        sharedModule = new WebAssembly.Module(shared);
      } catch {
        // Refused (a browser's main thread compiles modules this size only asynchronously): for
        // good in this realm, rather than decoding, rewriting and compiling again every pass.
        sharedModule = null;
        return undefined;
      }
    }
    return new WasmKernels(new WebAssembly.Instance(sharedModule, {}));
  } catch {
    return undefined;
  }
}

/**
 * Compile and instantiate the kernels asynchronously (the way for browser main threads). After it
 * resolved, {@link loadWasmKernels} also works synchronously there because the module is cached.
 *
 * @returns the kernels, or `undefined` when WebAssembly SIMD is unavailable.
 * @example
 * ```ts
 * const kernels = await initWasmKernels();
 * ```
 */
export async function initWasmKernels(): Promise<WasmKernels | undefined> {
  try {
    if (cachedModule === undefined) {
      const bytes = moduleBytes();
      if (bytes === undefined) return undefined;
      cachedModule = await WebAssembly.compile(bytes);
    }
    const instance = await WebAssembly.instantiate(cachedModule, {});
    return new WasmKernels(instance);
  } catch {
    return undefined;
  }
}
