/* Radix-2 fast Fourier transforms for the autocovariances (acov.h) of the
 * convergence diagnostics and of MCLMC's tuning (pure C, no SEXP).
 *
 * Complex data are of a power-of-two length L, interleaved (z[2p] real,
 * z[2p + 1] imaginary part) for the DIF transform, split (separate real and
 * imaginary arrays) for the DIT transform.  The transforms do no bit reversal of their
 * own: the decimation-in-frequency transform takes natural order to
 * bit-reversed order, the decimation-in-time transform bit-reversed order
 * to natural order; bnn_fft_bitrev() permutes explicitly where needed.
 *
 * The AVX2/FMA routines (avx2 = 1, only if bnn_cpu_has_avx2_fma()) differ
 * from the portable ones by rounding; everything else is exactly
 * reproducible across machines. */
#ifndef BNNMC_FFT_H
#define BNNMC_FFT_H
#include <stdint.h>

/* 1 if the CPU has AVX2 and FMA (checked at run time). */
int bnn_cpu_has_avx2_fma(void);

/* Transform length for series of n values: the smallest power of two
 * >= 2n (zero padding against wrap-around), at least 4; *log2L = log2. */
int bnn_fft_len(int n, int *log2L);

/* Fills the twiddles of all stages: for the stage of half-length hh,
 * tw[hh - 1 + k] = exp(-i pi k / hh), k < hh (complex, 2L doubles in all),
 * and, if tw3 is not NULL, tw3[hh - 1 + k] = exp(-3 i pi k / hh) for the
 * fused radix-2^2 stages of bnn_fft_dif_padded(). */
void bnn_fft_twiddles(int L, double *tw, double *tw3);

/* partner[p] = position, in bit-reversed order, of frequency L - k when
 * position p holds frequency k (L values). */
void bnn_fft_partners(int L, int log2L, uint32_t *partner);

/* In-place bit-reversal permutation of L complex values (split). */
void bnn_fft_bitrev(double *re, double *im, int L);

/* Forward DIF transform of the complex series a + i b (b may be NULL: real)
 * of n <= L / 2 values, zero padded to L; output z in bit-reversed order. */
void bnn_fft_dif_padded(double *z, int L, const double *tw, const double *tw3,
                        const double *a, const double *b, int n, int avx2);

/* DIT transform of re + i im (split; bit-reversed order in, natural order
 * out): forward (exponent -1) or, with inverse = 1, unnormalised inverse
 * (exponent +1).  The AVX2 routine is used for forward transforms only. */
void bnn_fft_dit(double *re, double *im, int L, const double *tw, int inverse,
                 int avx2);
#endif
