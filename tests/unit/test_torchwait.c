/* SPDX-License-Identifier: BSD-3-Clause */
/* torchwait, torchrecord — torch.distributed's collective records (issue 67): a record as a
 * rank leaves it, checked field by field; and the records of a job matched: the rank behind its
 * group named certain, a rank that skipped a sub-group's call named from where both groups'
 * ranks went, a rank on another op at the same number, and no certainty on a tie. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"
#include "../../monitor/sample/record/torchrecord.h"
#include "../../monitor/hang/torchwait.h"

/* A rank of a snapshot: its state and its record, from JSON text. */
static json_t *rank_with(int rank, const char *collectives)
{
	json_error_t e;
	json_t *rec = json_loads(collectives, 0, &e);

	ck_assert_msg(rec, "%s: %s", collectives, e.text);
	return json_pack("{s:i, s:s, s:s, s:o}", "rank", rank, "host", "n1", "state", "IN_MPI", "collectives", rec);
}

#define WORLD4(c, d) "{\"slot\":0,\"size\":4,\"ranks\":[0,1,2,3],\"member\":true,\"backend\":\"gloo\"," \
		     "\"collectives\":[" #c "," #c "],\"ddp\":[" #d "," #d "]}"

static const char *culprit_evidence(json_t *out, int rank)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(out, "culprits"), i, c)
		if (json_integer_value(json_object_get(c, "rank")) == rank)
			return json_string_value(json_object_get(c, "evidence"));
	return NULL;
}

/* The DDP job of the issue: rank 1 waits in recv, the others in the gradient all-reduce it never
 * entered. */
START_TEST(behind_in_p2p_is_certain)
{
	json_t *snap = json_array();
	char buf[1024];

	for (int r = 0; r < 4; r++) {
		if (r == 1)
			snprintf(buf, sizeof(buf), "{\"rank\":1,\"world\":4,\"ops\":9,\"in_op\":true,\"groups\":[" WORLD4(5, 4)
				 "],\"current\":{\"group\":0,\"kind\":\"p2p\",\"seq\":0,\"op\":\"recv\",\"peer\":2,"
				 "\"numel\":4,\"site\":\"/x/train.py:91\"},\"previous\":{\"group\":0,\"kind\":"
				 "\"collective\",\"seq\":5}}");
		else
			snprintf(buf, sizeof(buf), "{\"rank\":%d,\"world\":4,\"ops\":10,\"in_op\":true,\"groups\":["
				 "{\"slot\":0,\"size\":4,\"ranks\":[0,1,2,3],\"member\":true,\"backend\":\"gloo\","
				 "\"collectives\":[5,5],\"ddp\":[5,4]}],\"current\":{\"group\":0,\"kind\":\"ddp\","
				 "\"seq\":5,\"op\":\"DDP gradient all-reduce\",\"numel\":0,\"site\":\"/x/train.py:106\"},"
				 "\"previous\":{\"group\":0,\"kind\":\"collective\",\"seq\":5}}", r);
		json_array_append_new(snap, rank_with(r, buf));
	}

	json_t *out = torchwait_analyze(snap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(json_array_size(json_object_get(out, "culprits")), 1);
	ck_assert_str_eq(culprit_evidence(out, 1), "certain");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_array_get(json_object_get(out, "culprits"), 0),
								       "why")), "waits in recv from rank 2 at train.py:91"));
	ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(json_object_get(out, "diagnosis"), 0)),
				     "DDP gradient all-reduce #5 of the default group at train.py:106; rank 1 never entered it"));
	json_decref(out);
	json_decref(snap);
}
END_TEST

/* A sub-group's record for the skip cases: ranks 1-3 make group 1 (with local, rank 0, no
 * member, does not make it at all: torch's use_local_synchronization). */
static void skip_job(json_t *snap, bool three_in_group, bool local)
{
	char buf[1400];
	const char *sub = three_in_group ? "[1,2,3]" : "[1,2]";
	int size = three_in_group ? 3 : 2;

	for (int r = 0; r < 4; r++) {
		bool member = three_in_group ? r >= 1 : (r == 1 || r == 2);
		bool in_sub = three_in_group ? (r == 1 || r == 3) : r == 1;
		char grp[400];

		snprintf(grp, sizeof(grp), "{\"slot\":1,\"size\":%d,\"ranks\":%s,\"member\":%s,\"backend\":\"gloo\","
			 "\"collectives\":[%d,%d],\"ddp\":[0,0]}", size, sub, member ? "true" : "false",
			 in_sub ? 8 : member ? 7 : 0, member ? 7 : 0);
		if (local && !member)
			snprintf(grp, sizeof(grp), "{\"slot\":1,\"size\":1,\"ranks\":[0],\"member\":true,"
				 "\"backend\":\"gloo\",\"collectives\":[0,0],\"ddp\":[0,0]}");
		snprintf(buf, sizeof(buf), "{\"rank\":%d,\"world\":4,\"ops\":20,\"in_op\":true,\"groups\":["
			 "{\"slot\":0,\"size\":4,\"ranks\":[0,1,2,3],\"member\":true,\"backend\":\"gloo\","
			 "\"collectives\":[%d,10],\"ddp\":[0,0]},%s],\"current\":{\"group\":%d,\"kind\":\"collective\","
			 "\"seq\":%d,\"op\":\"all_reduce\",\"numel\":1024,\"site\":\"/x/sub.py:%d\"},\"previous\":"
			 "{\"group\":0,\"kind\":\"collective\",\"seq\":10}}",
			 r, in_sub ? 10 : 11, grp, in_sub ? 1 : 0, in_sub ? 8 : 11, in_sub ? 51 : 43);
		json_array_append_new(snap, rank_with(r, buf));
	}
}

START_TEST(skipped_subgroup_call_is_certain)
{
	json_t *snap = json_array();

	skip_job(snap, true, false);

	json_t *out = torchwait_analyze(snap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(json_array_size(json_object_get(out, "culprits")), 1);
	ck_assert_str_eq(culprit_evidence(out, 2), "certain");

	const char *why = json_string_value(json_object_get(json_array_get(json_object_get(out, "culprits"), 0), "why"));

	ck_assert_msg(strstr(why, "it skipped all_reduce #8 of group 1 (ranks 1-3) at sub.py:51: after collective #10 of "
				  "the default group, 2 of the ranks in both groups went on to it and 1 to all_reduce #11"),
		      "%s", why);
	json_decref(out);
	json_decref(snap);
}
END_TEST

/* Rank 0 made another group in slot 1 (a group of its own, no sub-group): slots differ from
 * rank to rank, the groups are matched by their members. */
START_TEST(groups_matched_by_members_not_slots)
{
	json_t *snap = json_array();

	skip_job(snap, true, true);

	json_t *out = torchwait_analyze(snap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(json_array_size(json_object_get(out, "culprits")), 1);
	ck_assert_str_eq(culprit_evidence(out, 2), "certain");
	json_decref(out);
	json_decref(snap);
}
END_TEST

/* Two members, one each way: nothing certain. */
START_TEST(tie_is_likely)
{
	json_t *snap = json_array();

	skip_job(snap, false, false);

	json_t *out = torchwait_analyze(snap);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_ge(json_array_size(json_object_get(out, "culprits")), 1);
	for (size_t i = 0; i < json_array_size(json_object_get(out, "culprits")); i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(out, "culprits"), i),
								   "evidence")), "likely");
	json_decref(out);
	json_decref(snap);
}
END_TEST

/* Rank 3 in broadcast #6 where the others are in all_reduce #6. */
START_TEST(other_op_same_number)
{
	json_t *snap = json_array();
	char buf[1024];

	for (int r = 0; r < 4; r++) {
		snprintf(buf, sizeof(buf), "{\"rank\":%d,\"world\":4,\"ops\":6,\"in_op\":true,\"groups\":["
			 "{\"slot\":0,\"size\":4,\"ranks\":[0,1,2,3],\"member\":true,\"backend\":\"gloo\","
			 "\"collectives\":[6,5],\"ddp\":[0,0]}],\"current\":{\"group\":0,\"kind\":\"collective\","
			 "\"seq\":6,\"op\":\"%s\",\"numel\":8,\"site\":\"/x/t.py:%d\"}}", r, r == 3 ? "broadcast" : "all_reduce",
			 r == 3 ? 12 : 10);
		json_array_append_new(snap, rank_with(r, buf));
	}

	json_t *out = torchwait_analyze(snap);

	ck_assert_int_eq(json_array_size(json_object_get(out, "culprits")), 1);
	ck_assert_str_eq(culprit_evidence(out, 3), "certain");
	json_decref(out);
	json_decref(snap);
}
END_TEST

START_TEST(no_records_no_analysis)
{
	json_t *snap = json_pack("[{s:i, s:s}]", "rank", 0, "state", "IN_MPI");

	ck_assert_ptr_null(torchwait_analyze(snap));
	json_decref(snap);
}
END_TEST

static void area_fill(struct torchrec_area *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->h.magic, TORCHREC_MAGIC, 8);
	a->h.version = TORCHREC_VERSION;
	a->h.size = TORCHREC_SIZE;
	a->h.rank = 1;
	a->h.world = 4;
	a->h.ngroups = 1;
	a->h.ops = 3;
	a->h.cur_group = 0;
	a->h.cur_kind = TORCHREC_COLL;
	a->h.cur_seq = 3;
	snprintf(a->h.cur_op, sizeof(a->h.cur_op), "all_reduce");
	a->h.cur_peer = -1;
	a->h.cur_line = 40;
	snprintf(a->h.cur_file, sizeof(a->h.cur_file), "/home/u/train.py");
	a->h.prev_group = -1;
	a->h.in_op = 1;
	a->g[0].size = 4;
	for (int i = 0; i < TORCHREC_LISTED; i++)
		a->g[0].ranks[i] = i < 4 ? i : -1;
	a->g[0].coll_entered = 3;
	a->g[0].coll_left = 2;
	a->g[0].member = 1;
	snprintf(a->g[0].backend, sizeof(a->g[0].backend), "gloo");
}

START_TEST(record_read_and_checked)
{
	static struct torchrec_area a;
	json_t *o;

	area_fill(&a);
	o = torchrecord_area_json(&a);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "current"), "site")), "/home/u/train.py:40");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o, "current"), "seq")), 3);
	ck_assert_int_eq(json_array_size(json_object_get(json_array_get(json_object_get(o, "groups"), 0), "ranks")), 4);
	ck_assert_ptr_null(json_object_get(o, "previous"));
	json_decref(o);

	/* Each broken field refuses the whole record. */
	area_fill(&a);
	a.h.magic[0] = 'X';
	ck_assert_ptr_null(torchrecord_area_json(&a));
	area_fill(&a);
	a.h.ngroups = TORCHREC_GROUPS + 1;
	ck_assert_ptr_null(torchrecord_area_json(&a));
	area_fill(&a);
	a.g[0].coll_left = 9;
	ck_assert_ptr_null(torchrecord_area_json(&a));
	area_fill(&a);
	a.h.world = 1;
	ck_assert_ptr_null(torchrecord_area_json(&a));
	/* Unterminated and control bytes: bounded, escaped. */
	area_fill(&a);
	memset(a.h.cur_op, '\n', sizeof(a.h.cur_op));
	memset(a.h.cur_file, 'a', sizeof(a.h.cur_file));
	o = torchrecord_area_json(&a);
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_null(strchr(json_string_value(json_object_get(json_object_get(o, "current"), "op")), '\n'));
	json_decref(o);
	/* A current call in a group it does not have: no current call. */
	area_fill(&a);
	a.h.cur_group = 5;
	o = torchrecord_area_json(&a);
	ck_assert_ptr_null(json_object_get(o, "current"));
	json_decref(o);
}
END_TEST

/* A process that keeps no record: nothing, not an error. */
START_TEST(no_record_in_this_process)
{
	ck_assert_ptr_null(torchrecord_json(getpid()));
}
END_TEST

Suite *torchwait_suite(void)
{
	Suite *s = suite_create("torchwait");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, behind_in_p2p_is_certain);
	tcase_add_test(tc, skipped_subgroup_call_is_certain);
	tcase_add_test(tc, groups_matched_by_members_not_slots);
	tcase_add_test(tc, tie_is_likely);
	tcase_add_test(tc, other_op_same_number);
	tcase_add_test(tc, no_records_no_analysis);
	tcase_add_test(tc, record_read_and_checked);
	tcase_add_test(tc, no_record_in_this_process);
	suite_add_tcase(s, tc);
	return s;
}
