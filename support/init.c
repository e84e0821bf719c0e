/* init.c - the initialisation rule shared by latch-interp and the GPU runtime (see init.h). */
#include "init.h"

#include <string.h>

uint64_t latch_splitmix64(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  uint64_t z = x;
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

uint64_t latch_init_key(uint64_t seed, uint64_t p) { return latch_splitmix64(latch_splitmix64(seed) ^ p); }

double latch_init_normal(uint64_t key, uint64_t i) {
  /* Each r_j is a multiple of 2^-24 below 1, so the sum of twelve needs at most 28 significant bits:
   * every addition is exact, whatever the order. */
  double sum = 0.0;
  for (uint64_t j = 0; j < 12; ++j) {
    uint64_t u = latch_splitmix64(key + 12 * i + j);
    sum += (double)(u >> 40) * 0x1p-24;
  }
  return sum - 6.0;
}

uint64_t latch_init_index(uint64_t key, uint64_t i, uint64_t range) {
  return (latch_splitmix64(key + i) >> 32) % range;
}

double latch_round_f32(double value) { return (double)(float)value; }

uint16_t latch_bf16_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0)
    return (uint16_t)((bits | 0x00400000u) >> 16); /* NaN: keep the sign, quieten */
  /* Round to nearest even on the 16 dropped bits; a carry into the exponent is the right result (up
   * to infinity for the largest finite values), and it never reaches the sign bit. */
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

float latch_bf16_to_float(uint16_t bits) {
  uint32_t wide = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &wide, sizeof(value));
  return value;
}

double latch_round_bf16(double value) {
  return (double)latch_bf16_to_float(latch_bf16_from_float((float)value));
}
