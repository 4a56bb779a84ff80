/* The workspace of the convergence diagnostics (diagnostics.h), private to
 * their implementation: diagnostics.c (workspace, summaries, column
 * statistics), ranks.c (sorting and rank normalisation), rhat.c (R-hat)
 * and ess.c (ESS and MCSE), diag_stats.c (helpers following R, column
 * statistics); ranks.h and diag_stats.h declare what ranks.c and
 * diag_stats.c offer the others.  Autocovariances come from acov.h.
 * Layers: diag_ws.h <- diag_stats.c <- ranks.c <- rhat.c, ess.c,
 * diagnostics.c (no file includes one above it). */
#ifndef BNNMC_DIAG_WS_H
#define BNNMC_DIAG_WS_H
#include <stddef.h>
#include <stdint.h>
#include "acov.h"

/* the workspace's type (diagnostics.h declares the same, opaque, for its
 * users; this private header does not include the public one) */
typedef struct bnn_diag_ws bnn_diag_ws;

#define RADIX_MAX_BITS 12 /* digit width of the radix sort */
#define RUN_BUF 1024      /* longest tie run of the fast folded ranking */
#define RADIX_MAX_PASSES 6

/* cached per-variable state */
enum {
  ST_SCAN = 1u << 0,   /* has_nan, has_inf */
  ST_SORT = 1u << 1,   /* sval, sidx */
  ST_ZB = 1u << 2,     /* zb: rank-normalised split draws */
  ST_ZT = 1u << 3,     /* zt: rank-normalised split folded draws */
  ST_MEAN = 1u << 4,
  ST_SD = 1u << 5,
  ST_RB = 1u << 6,     /* rhat_bulk */
  ST_RT = 1u << 7,     /* rhat_tail */
  ST_EB = 1u << 8,     /* ess_basic */
  ST_MED = 1u << 9
};

struct bnn_diag_ws {
  int n_iter, n_chain, kappa;
  /* 1: a workspace of bnn_diag_reff_ws_init(), for the ESS of the whole
   * chains only: the columns of the ESS are the chains (h = n_iter,
   * m2 = n_chain) and only the buffers of ess.c are laid out */
  int chains;
  int S;      /* draws per variable */
  int h;      /* length of a split half: floor(n_iter / 2) (chains: n_iter) */
  int m2;     /* number of split chains: 2 * n_chain (chains: n_chain) */
  int Sp;     /* split draws: m2 * h */
  int Lc, Sc; /* chain-wise: sub-chain length and kept draws per chain */
  int L, log2L;
  int direct_max; /* lags computed directly before switching to the FFT */
  int avx2;       /* the CPU has AVX2 and FMA */
  int n_capped;

  /* current variable */
  const double *x;
  unsigned st;
  int has_nan, has_inf, n_valid;
  int split_nan; /* NaN among the draws kept by splitting */
  int zb_na, zt_na; /* rank-normalised draws unusable (NA in posterior) */
  double mean, sd, med, rhat_bulk, rhat_tail, ess_basic;

  /* a draw is coded as (chain << ib) | iteration */
  int ib, r0; /* r0: first iteration kept by the chain-wise R-hat */
  uint32_t imask;

  /* sorting */
  uint64_t *key, *key2, *key3;
  uint32_t *hist;
  int id_bits; /* bits of a draw code in a composite sort key */
  double *sval;   /* sorted non-NaN draws */
  uint32_t *sidx; /* their codes */
  double *fval;   /* folded draws, sorted */
  double *fbuf;   /* folded draws in the order of sval */
  uint32_t *fidx;

  /* split matrices [h, m2] (chains: tmp and yc, [n_iter, n_chain]) */
  double *zb, *tmp, *yc;
  /* Scores used only for R-hat need column moments only: they are added to
   * per-column accumulators (acc_add) instead of being stored.  tacc: the
   * folded scores (m2 columns); cacc: the within-chain scores (column
   * chain * kappa + sub-chain). */
  double *tK, *tS1, *tS2, *cK, *cS1, *cS2;
  uint32_t *run; /* columns of a pending tie run (RUN_BUF) */
  int32_t *sub_of; /* iteration -> sub-chain of the chain-wise R-hat */
  int *cw_const;   /* chain-wise: all kept draws of the chain are tied */
  /* normal scores for integer ranks r and for ranks r + 1/2 (ties), for
   * S = Sp (split draws) and S = Sc (chain-wise); filled lazily */
  double *tsp_int, *tsp_half, *tcw_int, *tcw_half;
  int *cnt, *kcnt, *chain_nan;
  double *cm, *cv; /* column means / variances (max(m2, M * kappa) each) */
  const double **colp; /* column pointers of a split matrix (m2) */

  /* ESS */
  double *acov, *rho; /* length h */
  int n_acov;
  double *cbuf, *pw, *tw, *tw3; /* FFT: 2L, L, 2L, 2L (twiddles of all stages) */
  uint32_t *rev;          /* bit-reversed position of frequency L - k */
  bnn_acov_fft fft;       /* the FFT autocovariances over these buffers */
};

/* ---------- column pointers ---------- */

/* Column pointers of the split matrix [h, 2M] of the draws themselves
 * (first halves, then second halves; an odd chain's middle draw dropped),
 * or of a contiguous matrix y [n, m]. */
static inline const double *const *split_cols_x(bnn_diag_ws *ws) {
  int N = ws->n_iter, h = ws->h, M = ws->n_chain;
  for (int c = 0; c < M; c++) {
    ws->colp[c] = ws->x + (size_t) N * c;
    ws->colp[M + c] = ws->x + (size_t) N * c + (N - h);
  }
  return ws->colp;
}

static inline const double *const *cols_of(bnn_diag_ws *ws, const double *y, int n, int m) {
  for (int j = 0; j < m; j++) ws->colp[j] = y + (size_t) n * j;
  return ws->colp;
}
#endif
