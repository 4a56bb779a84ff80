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

/* The same map for modes BNN_SYM_PERMUTE and BNN_SYM_ODD, where it is a
 * signed permutation of theta: computes it from the biases and outgoing
 * weights alone (index arithmetic, no data moved while deciding) and writes
 * the canonical vector to out (n_net entries; out != theta).  Parameter j
 * of the draw is theta[j * stride] and goes to out[j * stride], so that a
 * block of draws can be kept parameter by parameter.  The result is bit for
 * bit that of bnn_sym_canonical().  work and iwork have
 * bnn_sym_perm_work_doubles() and bnn_sym_perm_work_ints() entries.
 * Returns 0, or 1 if theta has a non-finite entry (then out is a copy of
 * theta). */
size_t bnn_sym_perm_work_doubles(int n_layers, const int *sizes);
size_t bnn_sym_perm_work_ints(int n_layers, const int *sizes);
int bnn_sym_canonical_perm(int n_layers, const int *sizes, int mode, const double *theta,
                           double *out, size_t stride, double *work, int *iwork);
#endif
