/* SPDX-License-Identifier: BSD-3-Clause */
/* mpirecord — what the recording layer (record/, libparastack-mpi.so) says a rank is doing in
 * MPI: the call each thread is in (peer, tag, communicator, collective number, call site), its
 * communicators and its live nonblocking requests. Copied from the rank with process_vm_readv,
 * without stopping it; nothing when the rank runs without the layer. */
#ifndef PARASTACK_MPIRECORD_H
#define PARASTACK_MPIRECORD_H

#include <jansson.h>

#include "../../../record/record_format.h"
#include "../addr/symbolize.h"
#include "../stop/target.h"

/* The rank's record as JSON (call sites named through sy), or NULL when it has no recording
 * layer or the copy is unusable (another version, torn). A record that contradicts itself or
 * the job of job_size ranks (record_check.h) is {"unreadable": "why"}. */
json_t *mpirecord_json(const struct target *t, struct symbolizer *sy, int job_size);
/* The same of an area already copied (tests, fuzzing; call sites by address), as rank's
 * (-1: unknown). */
json_t *mpirecord_area_json(const struct psrec_area *a, int job_size, int rank);
/* What kind of call an MPI function ("MPI_Recv") is, from record/mpi.api; PSREC_KIND_NONE for
 * one the layer does not record. */
enum psrec_kind mpirecord_kind_of(const char *func);

#endif
