/* The kernel interface of the one chain driver (driver.c).
 *
 * A sampler is a kernel: state created once per chain, an init from a
 * position, and a step that writes one draw and its statistics.  The driver
 * owns the target and the chain's RNG, counts iterations, records the first
 * failure and its reason, and is driven in blocks from R (api_kernel.c), so
 * that blocks, interrupts, progress and failed-chain reporting are written
 * once for every kernel: NUTS and static HMC (hmc_kernel.c), random-walk
 * Metropolis, pCN, SGLD/pSGLD/SGHMC.
 *
 * The shape follows BlackJAX's SamplingAlgorithm (init, step) and Stan's
 * base_mcmc: adaptation is the kernel's business during warm-up iterations
 * (iter < n_warmup), and is frozen afterwards.
 *
 * Rules for a kernel:
 *  - create() allocates all workspace; init() and step() allocate nothing,
 *    call no R API and touch no global mutable state (thread-safe chains).
 *  - All randomness comes from the rng handed to init() (the chain's own
 *    stream), so draws do not depend on how chains are scheduled.
 *  - The kernel does not know whether the target's gradient is exact: a
 *    minibatch target plugs in through the same bnn_target (target.h).
 *  - A non-finite state, a collapsed step size or a chain that cannot move
 *    is a failure with a short static reason string, never a draw. */
#ifndef BNNMC_KERNEL_H
#define BNNMC_KERNEL_H
#include "interrupt.h"
#include "nonfinite.h"
#include "rng.h"
#include "target.h"

/* The one set of chain status codes, for every kernel.  bnn_status_table
 * (driver.c) gives each its name, the label of a fit's chain_status and
 * the default reason (bnn_status_reason()); R reads the table once
 * (C_chain_status_table) and looks statuses up by name, never by code. */
enum bnn_status {
  BNN_K_OK = 0,
  BNN_K_BAD_INIT = 1,     /* log density not finite at the start */
  BNN_K_STEPSIZE = 2,     /* step-size search failed (0 or 1e7) */
  BNN_K_METRIC = 3,       /* adapted metric not finite */
  BNN_K_NONFINITE = 4,    /* position, momentum or gradient turned non-finite */
  BNN_K_FAILED = 5,       /* any other failure; see the reason string */
  BNN_K_STUCK = 6,        /* never moved (set by R: every transition rejected) */
  BNN_K_INTERRUPTED = 9   /* interrupted inside a transition: unusable */
};

/* One row of the status table: the code, its name (what R looks it up
 * by), the label of a fit's chain_status, the default reason of the
 * failure, and whether a fit can hold a chain of this status (an
 * interrupted chain never ends in a fit: R raises the interrupt). */
typedef struct {
  int code;
  const char *name;
  const char *label;
  const char *reason;
  int in_fit;
} bnn_status_info;

/* The statuses, in code order; ended by a row whose name is NULL. */
extern const bnn_status_info bnn_status_table[];

/* The default reason of a status (a static string; NULL for BNN_K_OK). */
const char *bnn_status_reason(int status);

/* A check a kernel may call inside a long transition (after each leapfrog
 * step of NUTS or HMC): nonzero means "stop now" (a user interrupt); the
 * kernel then ends the transition and returns BNN_K_INTERRUPTED.  It reads
 * no random numbers, changes no state of the chain and calls no R API (the
 * .Call layer's hook reads R's pending-interrupt flag). */
typedef struct {
  int (*fn)(void *ctx);
  void *ctx;
} bnn_abort_hook;

typedef struct bnn_kernel_type {
  const char *name;
  int n_stats;
  const char *const *stat_names;   /* Stan-style names ending in "__" */
  /* Allocate the state for a chain of dimension dim; settings points to
   * the kernel's own settings struct (copied if kept).  NULL: no memory. */
  void *(*create)(int dim, const void *settings);
  void (*destroy)(void *state);
  /* Start at init.  n_warmup transitions are warm-up.  Returns a status
   * (BNN_K_OK, or BNN_K_BAD_INIT if the log density is not finite). */
  int (*init)(void *state, bnn_target *target, bnn_rng *rng,
              const double *init, int n_warmup);
  /* Transition number iter (0-based).  Writes the position (dim values)
   * to draw unless draw is NULL (a transition whose draw is not kept:
   * thinning, burn-in), and n_stats statistics.  Returns a status; on
   * failure sets *reason to a static string (statistics it wrote for the
   * failing transition are reported with the failure). */
  int (*step)(void *state, int iter, double *draw, double *stats,
              const char **reason);
  /* The current step size (NaN if the kernel has none). */
  double (*stepsize)(const void *state);
  /* Optional (NULL: none): the current position (dim values), the diagonal
   * inverse metric in use (writes dim values), further named scalar
   * statistics of the chain (n_info of them, at most 16, e.g. MCLMC's L),
   * and the abort hook, handed over once after create().  Read between
   * transitions only. */
  const double *(*position)(const void *state);
  void (*inv_metric)(const void *state, double *out);
  int n_info;
  const char *const *info_names;
  void (*info)(const void *state, double *out);
  void (*set_abort)(void *state, const bnn_abort_hook *hook);
} bnn_kernel_type;

/* One chain of the generic driver. */
typedef struct {
  const bnn_kernel_type *kernel;
  void *state;
  bnn_target target;
  void (*target_free)(void *ctx);  /* frees target.ctx; NULL: not owned */
  bnn_rng rng;
  int dim, n_warmup;
  int iter;           /* transitions done */
  int status;         /* enum bnn_status */
  int failed_iter;    /* 0-based iteration of the failure, -1 if none */
  const char *reason; /* static failure reason, or NULL */
  /* Interrupt checks of the .Call layer (api_kernel.c): a timer that lives
   * as long as the chain (not restarted by each block) for the checks
   * between transitions, and the hook the kernel may call inside one. */
  bnn_itimer timer;
  bnn_abort_hook abort;
} bnn_kchain;

/* Create a chain: seeds its RNG from (seed, stream), creates the kernel's
 * state, hands it the chain's abort hook (fn NULL until the .Call layer
 * sets one; the timer runs with the given period) and starts it at init.  Takes ownership of the target's context
 * (target_free is called on it, also on failure).  Returns NULL only on
 * allocation failure; a bad start is reported in ->status. */
bnn_kchain *bnn_kchain_new(const bnn_kernel_type *kernel, const void *settings,
                           bnn_target target, void (*target_free)(void *),
                           const double *init, uint64_t seed, uint64_t stream,
                           int n_warmup, double interrupt_period);
void bnn_kchain_free(bnn_kchain *c);
/* One transition; returns the chain's status.  After a failure the chain
 * stays failed and further calls do nothing.  draw may be NULL when the
 * transition's position is not needed (it is then not checked here: a
 * kernel reports a non-finite state itself). */
int bnn_kchain_step(bnn_kchain *c, double *draw, double *stats);
/* The position after the last transition is the last draw written; kernels
 * keep it, so the driver stores nothing per transition. */
#endif
