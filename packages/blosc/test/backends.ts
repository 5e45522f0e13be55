// Runs a suite once per decoding backend: the WebAssembly kernels and the TypeScript path.
import { afterAll, beforeAll, expect, it } from "vitest";
import { getDecodeBackend, setDecodeBackend } from "../src/index.js";

export const BACKENDS = ["wasm", "js"] as const;
export type Backend = (typeof BACKENDS)[number];

/** Force `backend` for the tests of the enclosing describe block, and check that it is in use. */
export function useBackend(backend: Backend): void {
  beforeAll(() => setDecodeBackend(backend));
  afterAll(() => setDecodeBackend("auto"));
  it(`decodes with the ${backend} backend`, () => {
    expect(getDecodeBackend()).toBe(backend);
  });
}
