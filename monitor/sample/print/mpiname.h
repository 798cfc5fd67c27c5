/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiname — the MPI API name of a function found in an MPI library. */
#ifndef PARASTACK_MPINAME_H
#define PARASTACK_MPINAME_H

#include <stddef.h>

/* PMPI_Recv, ompi_recv_f, mpi_recv_, ompi_mpi_finalize -> MPI_Recv / MPI_Finalize in buf;
 * NULL when func is no MPI routine. */
const char *mpiname_of(const char *func, char *buf, size_t len);

#endif
