/* SPDX-License-Identifier: BSD-3-Clause */
/* layer_ompi — the recording layer into an Open MPI launch line (layer_ompi.c; the contract is
 * layer_place.h's). Internal to launcher/. */
#ifndef PARASTACK_LAYER_OMPI_H
#define PARASTACK_LAYER_OMPI_H

#include "layer_placement.h"

/* 0 (placed, or p->why_not said why not), -1 out of memory. */
int layer_place_ompi(struct layer_placement *p, char **argv, const char *lib);

#endif
