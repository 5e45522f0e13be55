/*
 * The comparison operators' numbers, shared by the modules that compare values with a constant:
 * @fmt/expr's compare module (blocks copied into it; src/compare-wasm.ts numbers them alike) and
 * @fmt/blosc's plane kernel (wasm/compare_planes.c, chunks compared on their byte planes;
 * src/wasm/kernel-compare.ts numbers them alike).
 */
#ifndef FMT_COMPARE_OPS_H
#define FMT_COMPARE_OPS_H

#define OP_EQ 0
#define OP_NE 1
#define OP_LT 2
#define OP_LE 3
#define OP_GT 4
#define OP_GE 5

#endif
