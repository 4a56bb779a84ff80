#include "kernels.h"

static const bnn_kernels *selected = &bnn_kernels_generic;

const bnn_kernels *bnn_kern(void) { return selected; }

/* Called once from R_init_bnnmc (and from the option that turns SIMD off
 * for testing the portable path); not called while chains run. */
void bnn_kernels_select(int allow_simd) {
  selected = &bnn_kernels_generic;
#ifdef BNNMC_HAVE_AVX2_KERNELS
  if (allow_simd) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      selected = &bnn_kernels_avx2;
  }
#else
  (void)allow_simd;
#endif
}
