// Typed-array kernels of the evaluator, one per numexpr kind (spec/expressions.md §3):
// bool → Uint8Array of 0/1; int (int32) → any typed array of int32-range integers (results are
// Int32Array, whose stores wrap modulo 2^32 like C's int arithmetic); long (int64) → the column's
// BigInt64Array (V8 compares its elements about as fast as doubles; stores wrap modulo 2^64), or
// a Float64Array when the values come from narrower integers and so lie within ±2^53, where
// float64 arithmetic is exact and faster than BigInt arithmetic; float (float32) →
// Float32Array (a float64 result of + - * / of two float32 values rounds to the same float32 as
// float32 arithmetic); double → Float64Array. Loops switch on the operator outside the loop so
// that each loop body stays monomorphic. Comparisons of a block with a scalar go to the SIMD
// kernel of compare-wasm.ts when it computes exactly the same mask.
//
// This module is the kernels' entry point: the compiler, its helper modules and the evaluators
// import them from here. It re-exports them from the modules that implement them, one job each:
// - vectors.ts: the kinds, the vector types, casts and constant fills;
// - compare-numbers.ts: comparisons into 0/1 masks, and the count of a mask;
// - arithmetic.ts: arithmetic and unary minus.
export { castVec, commonKind, fillVec, int64ToFloat32, loadLong } from "./vectors.js";
export type { CmpOp, Kind, LongValues, NumArray, NumVec } from "./vectors.js";
export { compareLong, compareNumbers, countOnes } from "./compare-numbers.js";
export { floatArith, intArith, longArith, negateVec } from "./arithmetic.js";
export type { ArithOp } from "./arithmetic.js";
