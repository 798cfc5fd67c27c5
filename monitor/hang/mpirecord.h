/* mpirecord — what the recording layer (record/, libparastack-mpi.so) says a rank is doing in
 * MPI: the call each thread is in (peer, tag, communicator, collective number, call site), its
 * communicators and its live nonblocking requests. Copied from the rank with process_vm_readv,
 * without stopping it; nothing when the rank runs without the layer. */
#ifndef PARASTACK_MPIRECORD_H
#define PARASTACK_MPIRECORD_H

#include <jansson.h>

#include "../../record/record_format.h"
#include "../sample/symbolize.h"
#include "../sample/target.h"

/* The rank's record as JSON (call sites named through sy), or NULL when it has no recording
 * layer or the copy is unusable (another version, torn). */
json_t *mpirecord_json(const struct target *t, struct symbolizer *sy);
/* What kind of call an MPI function ("MPI_Recv") is, from record/mpi.api; PSREC_KIND_NONE for
 * one the layer does not record. */
enum psrec_kind mpirecord_kind_of(const char *func);

#endif
