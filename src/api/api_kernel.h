/* The registry of kernels of the generic driver (api_kernel.c): each entry
 * names a kernel, its type (kernel.h) and the boundary function that turns
 * R's settings list into the kernel's settings struct. */
#ifndef BNNMC_API_KERNEL_H
#define BNNMC_API_KERNEL_H
#include "api_util.h"
#include "kernel.h"

/* Room for any kernel's settings struct (checked against sizeof). */
#define BNN_KERNEL_SETTINGS_MAX 512

typedef struct {
  const char *name;
  const bnn_kernel_type *type;
  size_t settings_size;
  /* Fill `out` from the settings list; Rf_error on bad values, naming the
   * argument.  Pointers written into `out` may refer to R's memory: the
   * kernel copies what it keeps in create(). */
  void (*parse)(SEXP settings, int dim, void *out);
  /* nonzero: the kernel needs the target's Gaussian-reference split
   * (target.h), e.g. pCN; other targets are refused with an error */
  int needs_reference;
} bnn_kernel_entry;
#endif
