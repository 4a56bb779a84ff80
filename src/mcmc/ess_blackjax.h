/* Single-chain effective sample size of BlackJAX/Stan (Geyer's initial
 * positive and monotone sequences on FFT autocovariances), used by MCLMC's
 * tuning stage 3 (mclmc.c).  Pure C, no SEXP.  The autocovariances come
 * from acov.h, as those of the convergence diagnostics. */
#ifndef BNNMC_ESS_BLACKJAX_H
#define BNNMC_ESS_BLACKJAX_H
#include "acov.h"

/* Workspace for series of length n, allocated by bnn_ess_alloc. */
typedef struct {
  int n;                   /* series length */
  bnn_acov_fft fft;        /* transform length L >= 2n and buffers */
  double *tw, *z;          /* 2L each (owned; fft points to them) */
  double *acov_a, *acov_b; /* n each */
} bnn_ess_work;

/* 0 on success, 1 if out of memory (nothing left allocated). */
int bnn_ess_alloc(bnn_ess_work *w, int n);
void bnn_ess_free(bnn_ess_work *w);
/* ESS of two series a and b (each length n, b may be NULL) at once; results
 * in ess[0] (and ess[1]).  A constant series gives NaN. */
void bnn_ess_pair(bnn_ess_work *w, const double *a, const double *b,
                  double *ess);
#endif
