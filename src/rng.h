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
uint64_t bnn_rng_next(bnn_rng *r);
double bnn_rng_unif(bnn_rng *r);      /* uniform on (0, 1), never 0 or 1 */
double bnn_rng_norm(bnn_rng *r);      /* standard normal */
#endif
