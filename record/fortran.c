/* SPDX-License-Identifier: BSD-3-Clause */
/* fortran — the Fortran side of the recording layer (Open MPI only; the generated twins in
 * build/gen/record_wrappers.c use it): how a twin finds the library's own entry point,
 * how Fortran request arrays are read, and MPI_Init/MPI_Finalize in every symbol form (their
 * Fortran signatures are not the C ones). A Fortran INTEGER handle is converted with
 * PMPI_*_f2c only to be recorded: the library's own function gets the caller's arguments
 * untouched. `use mpi_f08`'s ierror is optional: ierr may be NULL there. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#include "layer.h"

#if PSREC_FORTRAN

/* Fortran entry points have no C header to declare them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* The library's own definition of sym (the next one after this layer), looked up once. */
int f_resolve(void **real, const char *sym)
{
	void *p = __atomic_load_n(real, __ATOMIC_ACQUIRE);

	if (!p) {
		p = dlsym(RTLD_NEXT, sym);
		__atomic_store_n(real, p, __ATOMIC_RELEASE);
	}
	return p != NULL;
}

/* A twin whose library function is missing (a binding the library lacks): fail as MPI would
 * rather than jump to NULL. */
void f_missing(F *ierr, const char *sym)
{
	fprintf(stderr, "parastack: recording layer: %s is not in this job's MPI library\n", sym);
	if (ierr)
		*ierr = MPI_ERR_INTERN;
}

static void f_reqs_convert(struct f_reqs *q, const F *reqs)
{
	for (int i = 0; i < q->n; i++)
		q->r[i] = PMPI_Request_f2c(reqs[i]);
}

/* Before a Wait/Test twin: the requests' slots (and, with c, the waiting call's list). */
void f_reqs_before(struct f_reqs *q, struct psrec_call *c, F n, const F *reqs)
{
	q->n = n < 0 ? 0 : n < SLOTS_MAX ? n : SLOTS_MAX;
	f_reqs_convert(q, reqs);
	reqs_before(c, q->n, q->r, &q->refs);
}

/* After it: what completed (handles now null; Fortran's indices count from 1). */
void f_reqs_after(struct f_reqs *q, const F *reqs, int all_done, const F *idx, int nidx)
{
	int c_idx[SLOTS_MAX], m = 0;

	f_reqs_convert(q, reqs);
	for (int k = 0; idx && k < nidx && k < SLOTS_MAX; k++)
		c_idx[m++] = idx[k] - 1;
	reqs_after(q->n, q->r, &q->refs, all_done, m, c_idx);
}

/* MPI_Start/MPI_Startall twins: the persistent requests are active again. */
void f_reqs_started(F n, const F *reqs)
{
	struct f_reqs q; /* not zeroed: only the first n are read */

	q.n = n < 0 ? 0 : n < SLOTS_MAX ? n : SLOTS_MAX;
	f_reqs_convert(&q, reqs);
	reqs_started(q.n, q.r);
}

/* MPI_Init, MPI_Init_thread and MPI_Finalize in the five symbol forms. */
#define F_INIT(sym)                                                                            \
	EXPORT void sym(F *ierr)                                                                \
	{                                                                                       \
		static void (*real)(F *);                                                       \
                                                                                                \
		if (!f_resolve((void **)&real, #sym)) {                                         \
			f_missing(ierr, #sym);                                                  \
			return;                                                                 \
		}                                                                               \
		real(ierr);                                                                     \
		if (FORT_OK(ierr))                                                                 \
			record_start();                                                         \
	}
#define F_INIT_THREAD(sym)                                                                     \
	EXPORT void sym(F *required, F *provided, F *ierr)                                      \
	{                                                                                       \
		static void (*real)(F *, F *, F *);                                             \
                                                                                                \
		if (!f_resolve((void **)&real, #sym)) {                                         \
			f_missing(ierr, #sym);                                                  \
			return;                                                                 \
		}                                                                               \
		real(required, provided, ierr);                                                 \
		if (FORT_OK(ierr))                                                                 \
			record_start();                                                         \
	}
/* Stays "in MPI_Finalize", as the C one. */
#define F_FINALIZE(sym)                                                                        \
	EXPORT void sym(F *ierr)                                                                \
	{                                                                                       \
		static void (*real)(F *);                                                       \
		struct call_args a = CALL_ARGS_NONE(PSREC_FINALIZE, CALLER);                    \
                                                                                                \
		if (!f_resolve((void **)&real, #sym)) {                                         \
			f_missing(ierr, #sym);                                                  \
			return;                                                                 \
		}                                                                               \
		call_enter(&a);                                                                 \
		A->finalized = 1;                                                               \
		recording = 0;                                                                  \
		real(ierr);                                                                     \
	}
#define F_FORMS(MACRO, lower, upper) MACRO(lower##_) MACRO(lower##__) MACRO(lower) MACRO(upper) MACRO(lower##_f08_)

F_FORMS(F_INIT, mpi_init, MPI_INIT)
F_FORMS(F_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD)
F_FORMS(F_FINALIZE, mpi_finalize, MPI_FINALIZE)
#endif
