/* Per-chain random number generator: xoshiro256++ seeded through splitmix64
 * from (seed, stream).  Each chain owns one generator, so draws do not depend
 * on how chains are scheduled.  No global state. */
#ifndef BNNMC_RNG_H
#define BNNMC_RNG_H
#include <stdint.h>

typedef struct {
  uint64_t s[4];
  int has_spare;      /* cached second normal deviate of the polar method */
  double spare;
} bnn_rng;

void bnn_rng_seed(bnn_rng *r, uint64_t seed, uint64_t stream);

/* The generator's step and uniforms are inline: the stochastic-gradient
 * kernels draw one deviate per parameter per step, and a call per draw
 * (with the state stored and reloaded around it) cost more than the draw. */
static inline uint64_t bnn_rng_rotl(const uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}
static inline uint64_t bnn_rng_next(bnn_rng *r) {
  uint64_t *s = r->s;
  const uint64_t result = bnn_rng_rotl(s[0] + s[3], 23) + s[0];
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = bnn_rng_rotl(s[3], 45);
  return result;
}
/* uniform on (0, 1), never 0 or 1: 53 random bits, shifted by half an ulp */
static inline double bnn_rng_unif(bnn_rng *r) {
  return ((double)(bnn_rng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}
double bnn_rng_norm(bnn_rng *r);      /* standard normal */
#endif
