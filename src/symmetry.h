/* Canonical representatives of an MLP's equioutput classes (neuron
 * permutations, sign flips of odd activations, positive rescalings of
 * positively homogeneous activations).  Pure C, no R API. */
#ifndef BNNMC_SYMMETRY_H
#define BNNMC_SYMMETRY_H
#include <stddef.h>

enum bnn_sym_mode {
  BNN_SYM_PERMUTE = 0,  /* permutations only */
  BNN_SYM_ODD,          /* permutations and sign flips (tanh, identity) */
  BNN_SYM_HOMOGENEOUS   /* permutations and positive rescaling (ReLU family) */
};

/* Workspace sizes for a network of n_layers weight layers and layer sizes
 * `sizes` (n_layers + 1 entries). */
size_t bnn_sym_work_doubles(int n_layers, const int *sizes);
size_t bnn_sym_work_ints(int n_layers, const int *sizes);

/* Map the network parameters theta (flat layout of model.h, network part
 * only) in place to the canonical member of their equioutput class.
 * work and iwork have the sizes above.  Returns 0, or 1 if theta has a
 * non-finite entry (then theta is left unchanged). */
int bnn_sym_canonical(int n_layers, const int *sizes, int mode, double *theta,
                      double *work, int *iwork);
#endif
