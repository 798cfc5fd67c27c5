/* SPDX-License-Identifier: BSD-3-Clause */
/* waitfor_records — synthetic ranks as mpirecord.c makes them, and the checks of what the
 * wait-for analysis names from them: what the culprits' tests share. */
#include "waitfor_records.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../monitor/hang/waitfor.h"

json_t *rank_new(int rank, int size)
{
	char members[32];

	snprintf(members, sizeof(members), "0-%d", size - 1);
	return json_pack("{s:i, s:s, s:i, s:s, s:{s:s, s:i, s:b, s:i, s:[], s:[], s:[{s:s, s:i, s:i, s:s, s:[]}], "
			 "s:[], s:b}}",
			 "rank", rank, "host", "n1", "pid", 1000 + rank, "state", "IN_MPI", "record", "library",
			 "test", "world_rank", rank, "finalized", 0, "dropped", 0, "calls", "requests", "comms", "id",
			 WORLD, "size", size, "coll_seq", 0, "members", members, "history", "channels",
			 "channels_complete", 1);
}

void comm_count(json_t *rank, const char *id, int size, const char *members, long long seq, const char *func,
		       const char *at)
{
	json_t *comms = json_object_get(json_object_get(rank, "record"), "comms"), *c = NULL, *e, *h = json_array();
	size_t i;

	json_array_foreach(comms, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "id")), id))
			c = e;
	if (!c) {
		c = json_pack("{s:s, s:i, s:s}", "id", id, "size", size, "members", members);
		json_array_append_new(comms, c);
	}
	for (long long n = seq > 3 ? seq - 3 : 1; n <= seq; n++)
		json_array_append_new(h, json_pack("{s:I, s:s, s:i, s:i, s:s}", "coll_seq", (json_int_t)n, "func", func,
						   "root", -1, "bytes", 8, "at", at));
	json_object_set_new(c, "coll_seq", json_integer(seq));
	json_object_set_new(c, "history", h);
}

void waits_in(json_t *rank, const char *id, const char *func, long long seq, const char *at)
{
	json_array_append_new(json_object_get(json_object_get(rank, "record"), "calls"),
			      json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:s, s:i, s:[], s:b}", "tid", 100,
					"func", func, "comm", id, "peer", -2, "tag", 0, "root", -1, "bytes", 8,
					"coll_seq", (json_int_t)seq, "at", at, "nreqs", 0, "reqs", "main", 1));
}

char *faulty_of(json_t *wf)
{
	return json_dumps(json_object_get(wf, "faulty_ranks"), JSON_COMPACT);
}

const char *evidence_of(json_t *wf, int rank)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(wf, "culprits"), i, c)
		if (json_integer_value(json_object_get(c, "rank")) == rank)
			return json_string_value(json_object_get(c, "evidence"));
	return "none";
}

bool diagnosis_says(json_t *wf, const char *words)
{
	char *text = json_dumps(json_object_get(wf, "diagnosis"), 0);
	bool found = text && strstr(text, words);

	if (!found)
		fprintf(stderr, "diagnosis without \"%s\": %s\n", words, text ? text : "?");
	free(text);
	return found;
}

void expect(json_t *s, const char *want, int rank, const char *evidence, const char *words)
{
	json_t *wf = waitfor_analyze(s);
	char *got = faulty_of(wf);

	if (strcmp(got, want))
		fprintf(stderr, "faulty_ranks %s, want %s\n", got, want);
	ck_assert_str_eq(got, want);
	ck_assert_str_eq(evidence_of(wf, rank), evidence);
	if (words)
		ck_assert(diagnosis_says(wf, words));
	free(got);
	json_decref(wf);
	json_decref(s);
}

