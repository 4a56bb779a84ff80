#include <math.h>
#include "rng.h"

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void bnn_rng_seed(bnn_rng *r, uint64_t seed, uint64_t stream) {
  /* Mix the stream index through splitmix64 separately so that nearby
   * (seed, stream) pairs give unrelated states. */
  uint64_t a = seed, b = stream ^ 0x5851f42d4c957f2dULL;
  uint64_t x = splitmix64(&a) ^ splitmix64(&b);
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
  if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0) r->s[0] = 1;
  r->has_spare = 0;
  r->spare = 0.0;
}

double bnn_rng_norm(bnn_rng *r) {
  if (r->has_spare) {
    r->has_spare = 0;
    return r->spare;
  }
  double u, v, s;
  do {
    u = 2.0 * bnn_rng_unif(r) - 1.0;
    v = 2.0 * bnn_rng_unif(r) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  double m = sqrt(-2.0 * log(s) / s);
  r->spare = v * m;
  r->has_spare = 1;
  return u * m;
}
