/* Rate-limited interrupt checks by elapsed time (pure C, no R).
 *
 * Checking R for a user interrupt costs little but is an R API call, so the
 * samplers check a clock instead and ask R only when `period` seconds of
 * work (wall-clock time: CLOCK_MONOTONIC, or clock() on Windows, where it
 * measures wall time) have passed since the last
 * time.  Reading the clock is itself cheap but not free, so the timer reads
 * it only every `stride` calls and adapts the stride: doubled while reads
 * come less than 2 ms apart, halved when they come more than 20 ms apart.
 * Nothing here touches a sampler's state or random numbers, so the draws do
 * not depend on when (or whether) the checks happen. */
#ifndef BNNMC_INTERRUPT_H
#define BNNMC_INTERRUPT_H
#include <time.h>

static inline double bnn_now(void) {
#if defined(_WIN32) || !defined(CLOCK_MONOTONIC)
  return (double)clock() / CLOCKS_PER_SEC;
#else
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return (double)clock() / CLOCKS_PER_SEC;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

typedef struct {
  double last_read, last_fire;
  int stride, count;
  double period;
  int started;   /* 0 in a zeroed (calloc) struct: not yet started */
} bnn_itimer;

static inline void bnn_itimer_init(bnn_itimer *t, double period) {
  t->last_read = t->last_fire = bnn_now();
  t->stride = 1;
  t->count = 0;
  t->period = period;
  t->started = 1;
}

/* A timer kept with a chain handle across run calls: started at the first
 * call, later calls only take the (possibly changed) period.  R drives the
 * chains in blocks shorter than the period (0.05-0.1 s against 0.2 s), so
 * a timer restarted at every call would never fire and Ctrl-C would wait
 * for R's own, much rarer, checks between blocks. */
static inline void bnn_itimer_resume(bnn_itimer *t, double period) {
  if (!t->started) bnn_itimer_init(t, period);
  else t->period = period;
}

/* 1 when at least `period` seconds passed since the last time it was 1. */
static inline int bnn_itimer_due(bnn_itimer *t) {
  if (++t->count < t->stride) return 0;
  t->count = 0;
  double now = bnn_now();
  double dt = now - t->last_read;
  t->last_read = now;
  if (dt < 0.002 && t->stride < 4096) t->stride *= 2;
  else if (dt > 0.02 && t->stride > 1) t->stride /= 2;
  if (now - t->last_fire >= t->period) {
    t->last_fire = now;
    return 1;
  }
  return 0;
}
#endif
