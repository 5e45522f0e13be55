// The WebAssembly and TypeScript lz4 encoders run the same algorithm (LZ4's fast compressor) and
// must give the same chunk ("auto" picks the wasm one), on data where a weaker match finder loses
// badly (small integers unshuffled) and on typical data.
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "@fmt/errors";
import { compress, decompress, setCodecBackend } from "../src/index.js";

/** xorshift32: a fixed, platform-independent stream of pseudo-random numbers in [0, 1). */
function makeRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

type Input = { name: string; typesize: number; shuffle: 0 | 1; make: (n: number) => Uint8Array };

const inputs: Input[] = [
  {
    name: "float64 random walk, shuffled", typesize: 8, shuffle: 1,
    make: (n) => {
      const rnd = makeRandom(1);
      const a = new Float64Array(n / 8);
      let x = 0;
      for (let i = 0; i < a.length; i++) a[i] = x += rnd() - 0.5;
      return new Uint8Array(a.buffer);
    },
  },
  {
    name: "int64 arange, shuffled", typesize: 8, shuffle: 1,
    make: (n) => new Uint8Array(BigInt64Array.from({ length: n / 8 }, (_, i) => BigInt(i)).buffer),
  },
  {
    name: "float64 uniform, unshuffled", typesize: 8, shuffle: 0,
    make: (n) => {
      const rnd = makeRandom(2);
      return new Uint8Array(Float64Array.from({ length: n / 8 }, () => rnd()).buffer);
    },
  },
  ...([0, 1] as const).map((shuffle): Input => ({
    name: `int32 0..99, ${shuffle ? "shuffled" : "unshuffled"}`, typesize: 4, shuffle,
    make: (n) => {
      const rnd = makeRandom(3);
      return new Uint8Array(Int32Array.from({ length: n / 4 }, () => Math.floor(rnd() * 100)).buffer);
    },
  })),
];

describe("lz4: WebAssembly encoder ratio vs TypeScript encoder", () => {
  afterEach(() => setCodecBackend("auto"));

  for (const input of inputs) {
    for (const size of [256 * 1024, 1024 * 1024]) {
      it(`${input.name}, ${size / 1024} KiB, clevel 1/5/9: the same chunk, which decodes`, () => {
        const data = input.make(size);
        for (const clevel of [1, 5, 9]) {
          const options = { typesize: input.typesize, clevel, shuffle: input.shuffle, cname: "lz4" as const };
          setCodecBackend("js");
          const js = compress(data, options);
          setCodecBackend("wasm");
          const wasm = compress(data, options);
          if (!sameBytes(wasm, js)) expect.fail(`clevel ${clevel}: wasm ${wasm.length} B and js ${js.length} B differ`);
          if (!sameBytes(decompress(wasm), data)) expect.fail(`clevel ${clevel}: wasm chunk does not decode to the input`);
        }
      });
    }
  }
});

describe("per-call backend option", () => {
  afterEach(() => setCodecBackend("auto"));

  it("compress(..., { backend }) gives the chunk the module-wide setting gives, whatever that setting is", () => {
    // int32 0..99 unshuffled: the WebAssembly lz4hc encoder writes a different (larger) chunk here
    const input = inputs.find((i) => i.name === "int32 0..99, unshuffled")!;
    const data = input.make(256 * 1024);
    const base = { typesize: input.typesize, clevel: 5, shuffle: input.shuffle, cname: "lz4hc" as const };
    setCodecBackend("js");
    const js = compress(data, base);
    setCodecBackend("wasm");
    const wasm = compress(data, base);
    expect(sameBytes(js, wasm)).toBe(false);
    expect(compress(data, { ...base, backend: "js" })).toEqual(js);
    setCodecBackend("js");
    expect(compress(data, { ...base, backend: "wasm" })).toEqual(wasm);
  });

  it("refuses an unknown backend with INVALID_ARGUMENT", () => {
    const options = { typesize: 4, clevel: 5, shuffle: 1, cname: "lz4", backend: "gpu" } as unknown as Parameters<typeof compress>[1];
    expect(() => compress(new Uint8Array(1000), options)).toThrow(UsageError);
  });
});
