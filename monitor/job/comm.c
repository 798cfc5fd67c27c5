/* SPDX-License-Identifier: BSD-3-Clause */
/* comm — MPI-1 only: Send/Irecv/Test, Allreduce, Allgather(v). */
#include "comm.h"

#include "../../stats/trace.h"
#include "../../base/clock.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_CMD 1
#define TAG_COUNTS 2
#define TAG_JSON 3
#define TAG_TREE 4 /* a subtree's snapshot, to the parent that asked */

static int leader; /* the monitor that leads, elected at start-up */

int comm_init(int *argc, char ***argv, struct comm *c)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS)
		return -1;
	MPI_Comm_rank(MPI_COMM_WORLD, &c->me);
	MPI_Comm_size(MPI_COMM_WORLD, &c->size);
	if (gethostname(c->host, sizeof(c->host)) < 0)
		strcpy(c->host, "?");
	c->host[sizeof(c->host) - 1] = '\0';
	c->leader = 0;
	return 0;
}

int comm_elect_leader(struct comm *c, bool candidate)
{
	int mine = candidate ? c->me : c->size, lowest = c->size;

	MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	leader = c->leader = lowest < c->size ? lowest : 0;
	return c->leader;
}

void comm_finalize(void)
{
	MPI_Finalize();
}

long comm_sum(long v)
{
	long r = 0;

	MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	return r;
}

long comm_max(long v)
{
	long r = 0;

	MPI_Allreduce(&v, &r, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
	return r;
}

void comm_bcast_bytes(char **buf, long *len)
{
	MPI_Bcast(len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	if (*len < 0)
		return;
	if (!*buf)
		*buf = malloc((size_t)*len + 1);
	MPI_Bcast(*buf, (int)*len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int compare_entry(const void *a, const void *b)
{
	const struct table_entry *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

int comm_allgather_table(const struct comm *c, const struct job_proc *local, int nlocal,
			 struct table_entry **all)
{
	int *counts = calloc((size_t)c->size, sizeof(int));
	int *displs = calloc((size_t)c->size, sizeof(int));
	struct table_entry *mine = calloc((size_t)(nlocal ? nlocal : 1), sizeof(*mine));
	int total = 0, bytes = nlocal * (int)sizeof(*mine);

	for (int i = 0; i < nlocal; i++) {
		mine[i].rank = local[i].rank;
		mine[i].pid = (int)local[i].pid;
		mine[i].monitor = c->me;
		memcpy(mine[i].host, c->host, sizeof(mine[i].host));
	}
	MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	for (int i = 0; i < c->size; i++) {
		displs[i] = total;
		total += counts[i];
	}
	*all = calloc((size_t)total / sizeof(**all) + 1, sizeof(**all));
	MPI_Allgatherv(mine, bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);

	int n = total / (int)sizeof(**all);

	qsort(*all, (size_t)n, sizeof(**all), compare_entry);
	free(mine);
	free(displs);
	free(counts);
	return n;
}

void comm_send_cmd(int to, enum comm_cmd cmd, const int *ranks, int n)
{
	int *msg = malloc((size_t)(n + 2) * sizeof(int));

	msg[0] = (int)cmd;
	msg[1] = n;
	if (n)
		memcpy(msg + 2, ranks, (size_t)n * sizeof(int));
	MPI_Send(msg, n + 2, MPI_INT, to, TAG_CMD, MPI_COMM_WORLD);
	free(msg);
}

void comm_send_to_followers(const struct comm *c, enum comm_cmd cmd)
{
	for (int mon = 0; mon < c->size; mon++)
		if (mon != c->me)
			comm_send_cmd(mon, cmd, NULL, 0);
}

void comm_send_sample(int to, long round, long since, const int *ranks, int n)
{
	int *msg = malloc((size_t)(n + 2) * sizeof(int));

	msg[0] = (int)round;
	msg[1] = (int)since;
	memcpy(msg + 2, ranks, (size_t)n * sizeof(int));
	comm_send_cmd(to, CMD_SAMPLE, msg, n + 2);
	free(msg);
}

int comm_recv_counts(int from, long round, double deadline_ms, struct sample_counts *c, char *codes,
		     signed char *waits, int n)
{
	int *v = calloc((size_t)(SAMPLE_COUNTS_INTS + 1 + n), sizeof(int)), flag = 0;
	MPI_Status st;

	*c = (struct sample_counts){ 0 };
	memset(codes, '-', (size_t)n);
	memset(waits, -1, (size_t)n);
	if (!v)
		return -1;
	for (;;) {
		MPI_Iprobe(from, TAG_COUNTS, MPI_COMM_WORLD, &flag, &st);
		if (!flag && mono_ms() >= deadline_ms) {
			free(v);
			return -1;
		}
		if (!flag) {
			sleep_ms(1);
			continue;
		}
		MPI_Recv(v, SAMPLE_COUNTS_INTS + 1 + n, MPI_INT, from, TAG_COUNTS, MPI_COMM_WORLD, &st);
		if (v[0] == (int)round)
			break; /* else an answer to a round given up on: dropped */
	}
	*c = (struct sample_counts){ v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] };
	/* A follower's letters are its word: only the alphabet of progress_code passes, and a
	 * wait of -1 to 100 percent (the letter's second byte, plus one). */
	for (int i = 0; i < n; i++) {
		int l = v[1 + SAMPLE_COUNTS_INTS + i] & 0xff, w = (v[1 + SAMPLE_COUNTS_INTS + i] >> 8) - 1;
		int lo = l >= 'A' && l <= 'Z' ? l - 'A' + 'a' : l;

		codes[i] = l > 0 && strchr(TRACE_PROGRESS_LETTERS, lo) ? (char)l : '-';
		waits[i] = (signed char)(w >= -1 && w <= 100 ? w : -1);
	}
	free(v);
	return 0;
}

/* Bytes of JSON this monitor received from the others since it started. */
static unsigned long long received_json_bytes;

unsigned long long comm_json_bytes_received(void)
{
	return received_json_bytes;
}

/* Receive the message st announces (any length) and parse it. */
static json_t *recv_json_now(const MPI_Status *st, int tag)
{
	int len = 0;

	MPI_Get_count(st, MPI_CHAR, &len);
	received_json_bytes += (unsigned long long)len;

	char *buf = malloc((size_t)len + 1);
	json_t *j;

	MPI_Recv(buf, len, MPI_CHAR, st->MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	buf[len] = '\0';
	j = json_loads(buf, 0, NULL);
	free(buf);
	return j;
}

json_t *comm_recv_json(int from, double deadline_ms)
{
	MPI_Status st;
	int flag = 0;

	/* MPI_Iprobe until the message is there, sleeping between tries. */
	for (;;) {
		MPI_Iprobe(from, TAG_JSON, MPI_COMM_WORLD, &flag, &st);
		if (flag)
			return recv_json_now(&st, TAG_JSON);
		if (mono_ms() >= deadline_ms)
			return NULL;
		sleep_ms(1);
	}
}

static int last_cmd_source = -1;

int comm_last_cmd_source(void)
{
	return last_cmd_source;
}

int comm_wait_cmd(int *ranks, int max, int *n, int poll_ms, volatile int *stop_flag,
		  void (*idle)(void *), void *idle_arg)
{
	int *msg = malloc((size_t)(max + 2) * sizeof(int));
	MPI_Request req;
	MPI_Status st;
	int done = 0, cmd = 0;

	MPI_Irecv(msg, max + 2, MPI_INT, MPI_ANY_SOURCE, TAG_CMD, MPI_COMM_WORLD, &req);
	while (!done) {
		MPI_Test(&req, &done, &st);
		if (!done && *stop_flag) {
			MPI_Cancel(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			free(msg);
			return 0;
		}
		if (!done) {
			if (idle)
				idle(idle_arg);
			sleep_ms(poll_ms);
		}
	}
	last_cmd_source = st.MPI_SOURCE;
	cmd = msg[0];
	*n = msg[1] < max ? msg[1] : max;
	memcpy(ranks, msg + 2, (size_t)*n * sizeof(int));
	free(msg);
	return cmd;
}

void comm_send_counts(long round, const struct sample_counts *c, const char *codes, const signed char *waits,
		      int n)
{
	int *v = calloc((size_t)(SAMPLE_COUNTS_INTS + 1 + n), sizeof(int));
	int head[SAMPLE_COUNTS_INTS + 1] = { (int)round, c->out,    c->live, c->moved, c->still,
					     c->kernel,    c->init, c->idle,  c->busy };

	/* Without memory the counts still go: the leader waits for them. */
	if (!v) {
		MPI_Send(head, SAMPLE_COUNTS_INTS + 1, MPI_INT, leader, TAG_COUNTS, MPI_COMM_WORLD);
		return;
	}
	memcpy(v, head, sizeof(head));
	for (int i = 0; i < n; i++)
		v[1 + SAMPLE_COUNTS_INTS + i] = (unsigned char)codes[i] | (waits[i] + 1) << 8;
	MPI_Send(v, SAMPLE_COUNTS_INTS + 1 + n, MPI_INT, leader, TAG_COUNTS, MPI_COMM_WORLD);
	free(v);
}

void comm_send_json(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	int len = s ? (int)strlen(s) : 0;

	MPI_Send(s ? s : "", len, MPI_CHAR, leader, TAG_JSON, MPI_COMM_WORLD);
	free(s);
}

void comm_send_capture(int to, enum comm_cmd cmd, int snap, int budget_ms, const int *gone, int ngone)
{
	int *msg = malloc((size_t)(ngone + 3) * sizeof(int));

	if (!msg)
		return;
	msg[0] = snap;
	msg[1] = budget_ms;
	msg[2] = ngone;
	memcpy(msg + 3, gone, (size_t)ngone * sizeof(int));
	comm_send_cmd(to, cmd, msg, ngone + 3);
	free(msg);
}

void comm_send_tree_reply(int to, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	int len = s ? (int)strlen(s) : 0;

	MPI_Send(s ? s : "", len, MPI_CHAR, to, TAG_TREE, MPI_COMM_WORLD);
	free(s);
}

json_t *comm_recv_tree_reply(const int *from, int n, double deadline_ms, int *who)
{
	MPI_Status st;
	int flag = 0;

	for (;;) {
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_TREE, MPI_COMM_WORLD, &flag, &st);
		if (!flag) {
			if (mono_ms() >= deadline_ms)
				return NULL;
			sleep_ms(1);
			continue;
		}

		json_t *j = recv_json_now(&st, TAG_TREE);

		for (int i = 0; i < n; i++)
			if (from[i] == st.MPI_SOURCE) {
				*who = st.MPI_SOURCE;
				return j ? j : json_null();
			}
		json_decref(j); /* from a monitor no longer asked: an answer given up on */
	}
}