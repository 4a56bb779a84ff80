/* R-hat of the convergence diagnostics (posterior::rhat, rhat_basic and
 * the chain-wise R-hat of Sommer et al. 2024); see diagnostics.h. */
#include <math.h>
#include "diagnostics.h"
#include "diag_stats.h"
#include "diag_ws.h"
#include "ranks.h"

/* ---------- R-hat of a matrix [n, m] (posterior:::.rhat) ---------- */

/* With matrixStats' arithmetic mirrored, degenerate inputs (chains constant
 * within a half) give the same values as posterior. */
static double rhat_matrix(const double *const *cols, int n, int m, double *cm,
                          double *cv) {
  if (n < 2 || m < 2) return NAN; /* colVars / var of one value: NA */
  diag_col_means(cols, n, m, cm, NULL);
  diag_col_vars(cols, n, m, cm, cv);
  double B = n * diag_r_var(cm, m);
  double W = diag_r_mean(cv, m);
  return sqrt((B / W + n - 1) / n);
}

/* R-hat from column means and variances (posterior:::.rhat) */
static double rhat_from_moments(const double *cm, const double *cv, int n, int m) {
  double B = n * diag_r_var(cm, m);
  double W = diag_r_mean(cv, m);
  return sqrt((B / W + n - 1) / n);
}

/* ---------- R-hat ---------- */

double bnn_diag_rhat_bulk(bnn_diag_ws *ws) {
  if (!(ws->st & ST_RB)) {
    diag_make_zb(ws);
    ws->rhat_bulk = ws->zb_na ? NAN
                              : rhat_matrix(cols_of(ws, ws->zb, ws->h, ws->m2), ws->h,
                                            ws->m2, ws->cm, ws->cv);
    ws->st |= ST_RB;
  }
  return ws->rhat_bulk;
}

double bnn_diag_rhat_tail(bnn_diag_ws *ws) {
  if (!(ws->st & ST_RT)) {
    diag_make_zt(ws);
    if (ws->zt_na || ws->h < 2) {
      ws->rhat_tail = NAN;
    } else {
      diag_acc_moments(ws->tK, ws->tS1, ws->tS2, ws->h, ws->m2, ws->cm, ws->cv);
      ws->rhat_tail = rhat_from_moments(ws->cm, ws->cv, ws->h, ws->m2);
    }
    ws->st |= ST_RT;
  }
  return ws->rhat_tail;
}

double bnn_diag_rhat(bnn_diag_ws *ws) {
  double b = bnn_diag_rhat_bulk(ws), t = bnn_diag_rhat_tail(ws);
  if (isnan(b) || isnan(t)) return NAN;
  return b > t ? b : t;
}

double bnn_diag_rhat_basic(bnn_diag_ws *ws) {
  if (ws->h < 1) return NAN;
  const double *const *cols = split_cols_x(ws);
  if (diag_should_na_cols(cols, ws->h, ws->m2, NULL)) return NAN;
  return rhat_matrix(cols, ws->h, ws->m2, ws->cm, ws->cv);
}

/* ---------- chain-wise R-hat ---------- */

void bnn_diag_chainwise_rhat(bnn_diag_ws *ws, double *out) {
  int M = ws->n_chain, K = ws->kappa;
  if (!K || ws->Lc < 2) {
    for (int c = 0; c < M; c++) out[c] = NAN;
    return;
  }
  diag_make_zb(ws);
  /* chains with NaN have fewer scores; their columns are not used */
  diag_acc_moments(ws->cK, ws->cS1, ws->cS2, ws->Lc, M * K, ws->cm, ws->cv);
  for (int c = 0; c < M; c++) {
    if (ws->chain_nan[c] || ws->cw_const[c]) out[c] = NAN;
    else out[c] = rhat_from_moments(ws->cm + (size_t) c * K, ws->cv + (size_t) c * K, ws->Lc, K);
  }
}
