/* SPDX-License-Identifier: BSD-3-Clause */
/* source_sim — the ranks of a simulated MPI job (daemon/source.h), for bench/scale-sim.sh and the
 * tests: a monitor built with this file instead of source_ptrace.c watches PS_SIM_RANKS scripted
 * ranks, split in blocks over the monitors, without stopping any process. Each rank is sampled
 * and captured as the real source would show it: a state, a progress fingerprint, a stack, and
 * the recording layer's record, built in the layer's own format (record_format.h) and read by
 * the installed reader (mpirecord_area_json, record_check.c). Everything after — both models,
 * the confirmation, the gathering over the monitors' real MPI messages, the diagnosis, the
 * report — is the installed monitor's code.
 *
 * The job (environment of the monitors):
 *   PS_SIM_RANKS=N     ranks in all (required)
 *   PS_SIM_CASE=C      healthy | behind | ring | farm (default healthy)
 *   PS_SIM_HANG_S=T    seconds after the ranks are found when the hang begins (default 30)
 *   PS_SIM_RING=R      ranks in the ring's communicator (default 1000, at most N/2)
 *   PS_SIM_PIDDIR=D    each monitor writes its PID to D/monitor.K.pid (for a test to stop one)
 * Before the hang, every rank computes (OUT_MPI) in 6 samples of 10 and waits in the
 * application's Allreduce otherwise, its fingerprint new at every sample (it moves). Then:
 *   behind  rank floor(0.77777 N) computes forever without moving and never enters the
 *           Allreduce (collective #K+1 on MPI_COMM_WORLD) every other rank waits in;
 *   ring    the first R ranks wait in MPI_Recv from the next one (a cycle) on a communicator of
 *           their own; the rest wait in Allreduce #K+1 on MPI_COMM_WORLD, which the ring's
 *           ranks have not entered;
 *   farm    rank 0 waits in MPI_Recv from MPI_ANY_SOURCE, worker floor(0.42424 N) computes
 *           forever, every other worker waits in MPI_Recv for work from rank 0. */
#include "../../monitor/daemon/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../monitor/sample/record/mpirecord.h"

enum sim_case { SIM_HEALTHY, SIM_BEHIND, SIM_RING, SIM_FARM };

/* What a rank is doing once the job hangs. */
enum sim_role { ROLE_STUCK_COMPUTING, ROLE_ALLREDUCE, ROLE_RING_RECV, ROLE_MASTER_RECV, ROLE_WORKER_RECV };

#define SIM_K 100                 /* collectives on MPI_COMM_WORLD completed before the hang */
#define SIM_WORLD_ID 1ULL         /* the layer's id of MPI_COMM_WORLD */
#define SIM_RING_ID 0x5151c0ffeeULL
#define SIM_PID_BASE 4000000      /* synthetic pids: never a process's (pid_max is at most 2^22) */
#define SITE_ALLREDUCE 0x401100
#define SITE_RING 0x401200
#define SITE_MASTER 0x401300
#define SITE_WORKER 0x401400

static struct sim {
	enum sim_case kind;
	int ranks, ring;
	double hang_ms, start_ms;
	long *samples;           /* per local rank: samples taken */
	struct psrec_area *area; /* one rank's record at a time */
} sim;

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

static void sim_configure(void)
{
	const char *c = getenv("PS_SIM_CASE");

	sim.ranks = env_int("PS_SIM_RANKS", 0);
	sim.kind = !c || !strcmp(c, "healthy") ? SIM_HEALTHY : !strcmp(c, "behind") ? SIM_BEHIND :
		   !strcmp(c, "ring") ? SIM_RING : !strcmp(c, "farm") ? SIM_FARM : SIM_HEALTHY;
	sim.ring = env_int("PS_SIM_RING", 1000);
	if (sim.ring > sim.ranks / 2)
		sim.ring = sim.ranks / 2;
	sim.hang_ms = env_int("PS_SIM_HANG_S", 30) * 1e3;
}

static int sim_behind(void)
{
	return (int)(0.77777 * sim.ranks);
}

static int sim_worker(void)
{
	return (int)(0.42424 * sim.ranks);
}

static enum sim_role sim_role(int rank)
{
	switch (sim.kind) {
	case SIM_BEHIND:
		return rank == sim_behind() ? ROLE_STUCK_COMPUTING : ROLE_ALLREDUCE;
	case SIM_RING:
		return rank < sim.ring ? ROLE_RING_RECV : ROLE_ALLREDUCE;
	case SIM_FARM:
		return rank == 0 ? ROLE_MASTER_RECV : rank == sim_worker() ? ROLE_STUCK_COMPUTING : ROLE_WORKER_RECV;
	default:
		return ROLE_ALLREDUCE;
	}
}

static bool sim_hung(void)
{
	return sim.kind != SIM_HEALTHY && mono_ms() - sim.start_ms >= sim.hang_ms;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return progress_mix(h, v) | 1; /* never 0: 0 is "no fingerprint" */
}

static void sim_write_pid(int me)
{
	const char *dir = getenv("PS_SIM_PIDDIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/monitor.%d.pid", dir, me);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* This monitor's block of the job's ranks. */
static int sim_discover(struct job *j, struct job_proc *local)
{
	int me = j->comm->me, size = j->comm->size, lo, hi, n = 0;

	sim_configure();
	sim_write_pid(me);
	lo = (int)((long)sim.ranks * me / size);
	hi = (int)((long)sim.ranks * (me + 1) / size);
	for (int r = lo; r < hi && n < MAX_RANKS; r++, n++)
		local[n] = (struct job_proc){ .pid = SIM_PID_BASE + r, .rank = r, .world_size = sim.ranks,
					      .restart = -1 };
	return n;
}

static int sim_open(struct job *j, const struct job_proc *local, int nlocal)
{
	j->targets = calloc((size_t)nlocal + 1, sizeof(*j->targets));
	j->local_rank = calloc((size_t)nlocal + 1, sizeof(int));
	j->prog = calloc((size_t)nlocal + 1, sizeof(*j->prog));
	free(sim.samples);
	sim.samples = calloc((size_t)nlocal + 1, sizeof(long));
	if (!j->targets || !j->local_rank || !j->prog || !sim.samples)
		return -1;
	for (int i = 0; i < nlocal; i++) {
		j->targets[i].rank = local[i].rank;
		j->targets[i].pid = local[i].pid;
		j->local_rank[i] = local[i].rank;
	}
	j->nlocal = nlocal;
	sim.start_ms = mono_ms();
	return 0;
}

static void sim_close(struct job *j)
{
	(void)j;
	free(sim.samples);
	sim.samples = NULL;
}

/* Healthy: computing in 6 samples of 10 (drawn from the rank and its sample count). */
static bool sim_healthy_out(int rank, long n)
{
	return mix(mix(0x5eed, (uint64_t)rank), (uint64_t)n) % 10 < 6;
}

static int sim_sample(struct job *j, int k, struct rank_sample *s)
{
	int rank = j->local_rank[k];
	long n = ++sim.samples[k];

	memset(s, 0, sizeof(*s));
	s->wait_share = -1;
	if (!sim_hung()) {
		s->state = sim_healthy_out(rank, n) ? RANK_OUT_MPI : RANK_IN_MPI;
		s->fingerprint.app = mix(mix(1, (uint64_t)rank), (uint64_t)n);
		return 0;
	}
	s->state = sim_role(rank) == ROLE_STUCK_COMPUTING ? RANK_OUT_MPI : RANK_IN_MPI;
	s->fingerprint.app = mix(mix(2, (uint64_t)rank), sim_role(rank));
	return 0;
}

static json_t *frame(const char *func, const char *file, int line, const char *module, bool in_mpi)
{
	return json_pack("{s:s, s:s?, s:o, s:s, s:b, s:b}", "func", func, "file", file, "line",
			 line ? json_integer(line) : json_null(), "module", module, "in_mpi", in_mpi,
			 "inlined", false);
}

/* The stack of a rank in role r (innermost first) and what it waits in. */
static json_t *sim_stack(enum sim_role r, const char **call, const char **path)
{
	json_t *f = json_array();
	const char *fn = "solve", *mpi = "MPI_Allreduce";
	int line = 42;

	switch (r) {
	case ROLE_STUCK_COMPUTING:
		json_array_append_new(f, frame("compute_forces", "app.c", 77, "app", false));
		*call = NULL;
		*path = "main > compute_forces";
		break;
	case ROLE_RING_RECV: fn = "ring_exchange", mpi = "MPI_Recv", line = 58; break;
	case ROLE_MASTER_RECV: fn = "collect_results", mpi = "MPI_Recv", line = 91; break;
	case ROLE_WORKER_RECV: fn = "get_work", mpi = "MPI_Recv", line = 103; break;
	default: break;
	}
	if (r != ROLE_STUCK_COMPUTING) {
		json_array_append_new(f, frame("ompi_request_default_wait", NULL, 0, "libmpi.so.40", true));
		json_array_append_new(f, frame(mpi, NULL, 0, "libmpi.so.40", true));
		json_array_append_new(f, frame(fn, "app.c", line, "app", false));
		*call = mpi;
		*path = r == ROLE_ALLREDUCE ? "main > solve > MPI_Allreduce" :
			r == ROLE_RING_RECV ? "main > ring_exchange > MPI_Recv" :
			r == ROLE_MASTER_RECV ? "main > collect_results > MPI_Recv" : "main > get_work > MPI_Recv";
	}
	json_array_append_new(f, frame("main", "app.c", 12, "app", false));
	return f;
}

/* A communicator in the record: ranks 0 .. size-1 of the world (both of the simulated job's are),
 * one run in the pool as the layer writes it. */
static void area_comm(struct psrec_area *a, int i, uint64_t id, int size, uint64_t coll_seq)
{
	struct psrec_comm *c = &a->comms[i];

	*c = (struct psrec_comm){ .used = 1, .handle = 0x1000 + (uint64_t)i, .id = id, .size = size,
				  .first = (int32_t)a->runs_used, .nruns = 1, .coll_seq = coll_seq };
	a->runs[a->runs_used++] = (struct psrec_run){ 0, 0, 1, size };
	for (uint64_t n = coll_seq > PSREC_HISTORY ? coll_seq - PSREC_HISTORY + 1 : 1; n <= coll_seq; n++)
		c->history[n % PSREC_HISTORY] = (struct psrec_coll){ n, PSREC_ALLREDUCE, -1, 8, SITE_ALLREDUCE };
}

static void area_chan(struct psrec_area *a, int i, uint64_t comm, int peer, int tag, uint64_t sent,
		      uint64_t posted, uint64_t done)
{
	a->chans[i] = (struct psrec_chan){ .used = 2, .peer = peer, .tag = tag, .comm = comm, .sent = sent,
					   .posted = posted, .done = done };
}

/* Rank `rank`'s record, hung in role r, as the layer would have left it. */
static void sim_area(struct psrec_area *a, int rank, enum sim_role r)
{
	struct psrec_call *c = &a->calls[0];
	bool in_world_coll = r == ROLE_ALLREDUCE;

	memset(a->calls, 0, sizeof(a->calls));
	memset(a->comms, 0, sizeof(a->comms));
	memset(a->chans, 0, 4 * sizeof(a->chans[0]));
	a->magic = PSREC_MAGIC;
	a->version = PSREC_VERSION;
	a->size = sizeof(*a);
	a->world_rank = rank;
	a->world_size = sim.ranks;
	a->nthreads = 1;
	a->runs_used = 0;
	a->dropped = 0;
	strcpy(a->mpi_library, "Open MPI v4.1.4 (simulated)");
	area_comm(a, 0, SIM_WORLD_ID, sim.ranks, SIM_K + in_world_coll);
	*c = (struct psrec_call){ .tid = SIM_PID_BASE + rank, .func = PSREC_NONE, .comm = -1, .peer = PSREC_NO_PEER,
				  .tag = -1, .root = -1, .bytes = 8, .step = 1000 };
	switch (r) {
	case ROLE_ALLREDUCE:
		c->func = PSREC_ALLREDUCE, c->comm = 0, c->coll_seq = SIM_K + 1, c->caller = SITE_ALLREDUCE;
		break;
	case ROLE_RING_RECV:
		area_comm(a, 1, SIM_RING_ID, sim.ring, 0);
		c->func = PSREC_RECV, c->comm = 1, c->peer = (rank + 1) % sim.ring, c->tag = 7;
		c->caller = SITE_RING;
		area_chan(a, 0, SIM_RING_ID, c->peer, 7, 0, 1, 0);
		break;
	case ROLE_MASTER_RECV:
		c->func = PSREC_RECV, c->comm = 0, c->peer = PSREC_ANY_SOURCE, c->tag = 1, c->caller = SITE_MASTER;
		/* Work sent to every worker; every result back but the stuck worker's. */
		area_chan(a, 0, SIM_WORLD_ID, PSREC_ANY_SOURCE, 1, 0, (uint64_t)sim.ranks - 1, (uint64_t)sim.ranks - 2);
		break;
	case ROLE_WORKER_RECV:
		c->func = PSREC_RECV, c->comm = 0, c->peer = 0, c->tag = 2, c->caller = SITE_WORKER;
		area_chan(a, 0, SIM_WORLD_ID, 0, 2, 0, 2, 1);
		area_chan(a, 1, SIM_WORLD_ID, 0, 1, 1, 0, 0);
		break;
	case ROLE_STUCK_COMPUTING:
		if (sim.kind == SIM_FARM) { /* its work came; its result was never sent */
			area_chan(a, 0, SIM_WORLD_ID, 0, 2, 0, 1, 1);
			area_chan(a, 1, SIM_WORLD_ID, 0, 1, 0, 0, 0);
		}
		break;
	}
}

static json_t *sim_capture(struct monitor *m, int k, bool with_record, int job_size)
{
	int rank = m->job.local_rank[k];
	enum sim_role r = sim_hung() ? sim_role(rank) : sim_healthy_out(rank, sim.samples[k]) ?
			  ROLE_STUCK_COMPUTING : ROLE_ALLREDUCE;
	const char *call = NULL, *path = "";
	json_t *frames = sim_stack(r, &call, &path);
	json_t *o = json_pack("{s:i, s:s, s:i, s:s, s:o, s:s, s:o, s:b, s:b}", "rank", rank, "host",
			      m->comm.host, "pid", SIM_PID_BASE + rank, "state",
			      r == ROLE_STUCK_COMPUTING ? "OUT_MPI" : "IN_MPI", "mpi_call",
			      call ? json_string(call) : json_null(), "path", path, "frames", frames,
			      "stopped", false, "recording_layer", true);

	if (with_record && (sim.area || (sim.area = calloc(1, sizeof(*sim.area))))) {
		sim_area(sim.area, rank, r);

		json_t *rec = mpirecord_area_json(sim.area, job_size, rank);
		json_t *unreadable = json_object_get(rec, "unreadable");

		json_object_set(o, unreadable ? "record_unreadable" : "record", unreadable ? unreadable : rec);
		json_decref(rec);
	}
	return o;
}

static const struct job_source sim_job_source = {
	.discover_local = sim_discover,
	.open_targets = sim_open,
	.sample = sim_sample,
	.close_targets = sim_close,
};

const struct rank_source rank_source = {
	.job = &sim_job_source,
	.capture = sim_capture,
};
