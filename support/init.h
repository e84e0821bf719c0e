/* init.h - the bit-reproducible initialisation rule of parameters and random inputs (docs/task-dialect.md,
 * "Initialisation"), and the fp64 -> f32 / bf16 roundings it ends in. Plain C with no MLIR dependency:
 * the GPU runtime shares this file and must reproduce every value bit for bit, so the rule uses only
 * integer operations and exactly rounded fp64 operations. */
#ifndef LATCH_SUPPORT_INIT_H
#define LATCH_SUPPORT_INIT_H

#include <stdint.h>

/* The `p` of the first random (non-parameter) input: input argument n uses p = LATCH_INIT_INPUT_BASE + n. */
#define LATCH_INIT_INPUT_BASE 1000000u

/* The default `task.init_std`. */
#define LATCH_INIT_DEFAULT_STD 0.02

/* splitmix64(x): x += 0x9E3779B97F4A7C15; z = x; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
 * z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31) (all modulo 2^64). */
uint64_t latch_splitmix64(uint64_t x);

/* The key of tensor number `p`: splitmix64(splitmix64(seed) ^ p). */
uint64_t latch_init_key(uint64_t seed, uint64_t p);

/* The standard-normal approximation of element `i` (row-major) under `key`: the sum over j = 0..11 of
 * r_j = (double)(splitmix64(key + 12 i + j) >> 40) * 2^-24, minus 6.0. Every step is exact. */
double latch_init_normal(uint64_t key, uint64_t i);

/* The integer of element `i` under `key` in [0, range): (splitmix64(key + i) >> 32) % range.
 * `range` must be at least 1. */
uint64_t latch_init_index(uint64_t key, uint64_t i, uint64_t range);

/* fp64 -> f32, round to nearest even (an overflow gives an infinity); returned as a double. */
double latch_round_f32(double value);

/* fp64 -> bf16: first to f32 (round to nearest even), then that f32 to bf16 (round to nearest even on
 * the bit pattern; NaN stays NaN, quietened). This two-step rounding is what a GPU that computes in fp32
 * and stores bf16 does, and it is part of the rule. Returned as a double. */
double latch_round_bf16(double value);

/* The bf16 bit pattern of a float (the same rounding as latch_round_bf16's second step), and back. */
uint16_t latch_bf16_from_float(float value);
float latch_bf16_to_float(uint16_t bits);

#endif
