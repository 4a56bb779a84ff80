#include "simd.h"
#include "sg_update.h"

static const bnn_simd_table *selected = &bnn_simd_generic;
static const bnn_sg_updates *sg_selected = &bnn_sg_updates_generic;

const bnn_simd_table *bnn_simd(void) { return selected; }
const bnn_sg_updates *bnn_sg_kern(void) { return sg_selected; }

/* Called once from R_init_bnnmc (and from C_simd, which tests use to compare
 * the implementations); not called while chains run.  GCC's and Clang's
 * __builtin_cpu_supports() report AVX-512 only when the operating system
 * saves the registers (XCR0). */
void bnn_simd_select(int level) {
  selected = &bnn_simd_generic;
  sg_selected = &bnn_sg_updates_generic;
#ifdef BNNMC_HAVE_AVX2_ROUTINES
  if (level >= 1) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      selected = &bnn_simd_avx2;
      sg_selected = &bnn_sg_updates_avx2;
    }
    if (level >= 2 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
      selected = &bnn_simd_avx512;
      sg_selected = &bnn_sg_updates_avx512;
    }
  }
#else
  (void)level;
#endif
}
