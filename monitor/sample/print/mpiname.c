/* SPDX-License-Identifier: BSD-3-Clause */
/* mpiname — the MPI routine a function name of an MPI library stands for. A string function
 * of its own so that the report and the fuzz targets link it without the stack capture. */
#include "mpiname.h"
#include "../../../base/runtimes.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void capitalize_call(const char *stem, size_t n, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "MPI_");

	for (size_t i = 0; i < n && o + 1 < len; i++)
		buf[o++] = (char)(i == 0 ? toupper((unsigned char)stem[i]) : stem[i]);
	buf[o < len ? o : len - 1] = '\0';
}

const char *mpiname_of(const char *func, char *buf, size_t len)
{
	size_t n = strlen(func);

	if (!strncmp(func, "PMPI_", 5)) {
		snprintf(buf, len, "MPI_%s", func + 5);
		return buf;
	}
	if (!strncmp(func, "MPI_", 4)) {
		snprintf(buf, len, "%s", func);
		return buf;
	}
	/* A runtime's own names: MPI_Finalize's body ompi_mpi_finalize, the binding ompi_recv_f. */
	const char *own;
	size_t own_n = runtime_mpi_stem(func, &own);

	if (own_n) {
		capitalize_call(own, own_n, buf, len);
		return buf;
	}
	if ((!strncmp(func, "mpi_", 4) || !strncmp(func, "pmpi_", 5)) && func[n - 1] == '_') {
		const char *stem = func + (func[0] == 'p' ? 5 : 4);
		size_t sn = strlen(stem);

		while (sn && stem[sn - 1] == '_')
			sn--;
		capitalize_call(stem, sn, buf, len);
		return buf;
	}
	return NULL;
}
