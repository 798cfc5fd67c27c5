/* SPDX-License-Identifier: BSD-3-Clause */
/* start — the layer's start and end: MPI_Init and MPI_Init_thread start recording only when the
 * job's MPI library is the one the layer was built for (same family and major version: the
 * handles' layout is what the wrappers rely on); MPI_Finalize marks the record finalized and
 * leaves the thread "in MPI_Finalize". The Fortran forms are in fortran.c. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "layer.h"

/* Does the library the job runs with match the one this layer was built for? (Same MPI
 * family and major version: the handles' layout is what the wrappers rely on.) */
static int library_matches(void)
{
	char version[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0;

	PMPI_Get_library_version(version, &len);
	snprintf(A->mpi_library, sizeof(A->mpi_library), "%.*s", (int)strcspn(version, ",\n"), version);
#if defined(OPEN_MPI)
	char want[64];

	snprintf(want, sizeof(want), "Open MPI v%d.", OMPI_MAJOR_VERSION);
	return strncmp(version, want, strlen(want)) == 0;
#elif defined(MPICH_VERSION)
	return strstr(version, "MPICH") != NULL;
#else
	return 1;
#endif
}

void record_start(void)
{
	A->magic = PSREC_MAGIC;
	A->version = PSREC_VERSION;
	A->size = sizeof(*A);
	PMPI_Comm_rank(MPI_COMM_WORLD, &A->world_rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &A->world_size);
	if (!library_matches()) {
		if (A->world_rank == 0)
			fprintf(stderr, "parastack: the recording layer was built for another MPI library "
				"than this job's (%s); the job runs without it\n", A->mpi_library);
		A->magic = 0;
		return;
	}
	reqs_start();
	recording = 1;
	comm_add(MPI_COMM_WORLD, 1);
	comm_add(MPI_COMM_SELF, mix(2, (uint64_t)A->world_rank));
}

EXPORT int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		record_start();
	return rc;
}

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		record_start();
	return rc;
}

EXPORT int MPI_Finalize(void)
{
	struct call_args a = CALL_ARGS_NONE(PSREC_FINALIZE, CALLER);
	struct psrec_call *c = call_enter(&a);

	A->finalized = 1;
	recording = 0;

	int rc = PMPI_Finalize();

	(void)c; /* stays "in MPI_Finalize": the process is about to end */
	return rc;
}
