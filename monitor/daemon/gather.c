/* SPDX-License-Identifier: BSD-3-Clause */
/* gather — every rank of the job, at hang time: each monitor captures its own ranks
 * (source.h), reduces them to classes (hang/snapclass.h: ranks that look the same travel once,
 * with their rank set), asks its children in the monitors' tree (job/tree.h) for theirs, merges
 * what they send until its deadline, and answers its parent with its whole subtree in classes;
 * the leader, at the root, hears from its children only, O(fan-out) messages of O(classes) bytes.
 * A monitor that does not answer in time is left out, named once, and never waited for again:
 * its children are asked by its parent from then on. */
#include "gather.h"

#include <string.h>

#include "../../base/log.h"
#include "../../base/ranges.h"
#include "../hang/report.h"
#include "../hang/snapclass.h"
#include "../job/tree.h"
#include "source.h"

#define CAPTURE_BUDGET_MS 60000 /* the leader's wait for a snapshot of the whole job: a node of
				 * hundreds of ranks symbolizes them all the first time */
#define LEVEL_MARGIN_MS 2000    /* each level of the tree answers this much sooner */
#define LEVEL_BUDGET_MIN_MS 1000

/* The job's size as the records are checked against it: every rank watched, numbered from 0
 * (a rank numbered past the count widens it). */
static int job_size(const struct monitor *m)
{
	int n = m->job.nranks;

	for (int i = 0; i < m->job.nranks; i++)
		if (m->job.table[i].rank >= n)
			n = m->job.table[i].rank + 1;
	return n;
}

/* The local ranks into s: whole with their records for CMD_CAPTURE_RECORD, else only what the
 * checks between snapshots read (report_compact_rank). */
static void gather_local_classes(struct monitor *m, enum comm_cmd cmd, struct snapclass *s)
{
	bool whole = cmd == CMD_CAPTURE_RECORD;
	int size = job_size(m);

	for (int i = 0; i < m->job.nlocal; i++) {
		json_t *r = rank_source.capture(m, i, whole && !m->w.no_record, size);

		if (!whole)
			report_compact_rank(r);
		snapclass_add_rank(s, r);
		json_decref(r);
	}
}

static struct tree monitor_tree(const struct monitor *m)
{
	return (struct tree){ m->comm.size, m->comm.leader, m->w.fanout > 0 ? m->w.fanout : TREE_FANOUT_DEFAULT,
			      m->gone };
}

/* The monitors left out, as a capture command carries them. The count. */
static int gone_list(const struct monitor *m, int *out)
{
	int n = 0;

	for (int mon = 0; m->gone && mon < m->comm.size; mon++)
		if (m->gone[mon])
			out[n++] = mon;
	return n;
}

/* Take one child's answer: its subtree's classes, the monitors of its subtree that did not
 * answer and those they left unreached. false when it is an answer to another snapshot (given
 * up on). */
static bool take_answer(struct snapclass *all, json_t *missing, json_t *unreached, json_t *answer, int snap)
{
	if (json_integer_value(json_object_get(answer, "snap")) != snap)
		return false;
	if (snapclass_add_form(all, json_object_get(answer, "form")) < 0)
		log_info("a monitor's snapshot had malformed classes: they are left out");
	if (json_is_array(json_object_get(answer, "missing")))
		json_array_extend(missing, json_object_get(answer, "missing"));
	if (json_is_array(json_object_get(answer, "unreached")))
		json_array_extend(unreached, json_object_get(answer, "unreached"));
	return true;
}

json_t *gather_subtree(struct monitor *m, enum comm_cmd cmd, int snap, int budget_ms, json_t *missing,
		       json_t *unreached)
{
	struct tree t = monitor_tree(m);
	int size = m->comm.size, *kids = calloc((size_t)size + 1, sizeof(int));
	int *gone = calloc((size_t)size + 1, sizeof(int)), *sub = calloc((size_t)size + 1, sizeof(int));
	int nkids = kids ? tree_children(&t, m->comm.me, kids, size) : 0, ngone = gone ? gone_list(m, gone) : 0;
	int child_budget = budget_ms - LEVEL_MARGIN_MS;
	double deadline = mono_ms() + budget_ms;
	struct snapclass *all = snapclass_new();
	json_t *form;

	child_budget = child_budget < LEVEL_BUDGET_MIN_MS ? LEVEL_BUDGET_MIN_MS : child_budget;
	for (int k = 0; k < nkids; k++)
		comm_send_capture(kids[k], cmd, snap, child_budget, gone, ngone);
	if (all)
		gather_local_classes(m, cmd, all);
	while (nkids > 0) {
		int who = -1;
		json_t *answer = comm_recv_tree_reply(kids, nkids, deadline, &who);

		if (!answer)
			break;
		if (all && take_answer(all, missing, unreached, answer, snap))
			for (int k = 0; k < nkids; k++)
				if (kids[k] == who)
					kids[k] = kids[--nkids];
		json_decref(answer);
	}
	/* The children that did not answer, and the monitors only they were asking. */
	for (int k = 0; k < nkids && sub; k++) {
		int n = tree_subtree(&t, kids[k], sub, size);

		json_array_append_new(missing, json_integer(kids[k]));
		for (int i = 1; i < n; i++)
			json_array_append_new(unreached, json_integer(sub[i]));
	}
	form = all ? snapclass_form(all) : json_pack("{s:[], s:[]}", "classes", "hosts");
	snapclass_free(all);
	free(sub);
	free(gone);
	free(kids);
	return form;
}

/* The monitor's entry for the report and the job's output: its host and its ranks. */
static json_t *missing_entry(const struct monitor *m, int mon)
{
	int n = 0, *ranks = calloc((size_t)m->job.nranks + 1, sizeof(int));
	const char *host = NULL;
	char *rr;

	for (int i = 0; ranks && i < m->job.nranks; i++)
		if (m->job.table[i].monitor == mon) {
			ranks[n++] = m->job.table[i].rank;
			host = m->job.table[i].host;
		}
	rr = ranks ? ranges_dup(ranks, n) : NULL;

	json_t *e = json_pack("{s:i, s:s?, s:i, s:s?}", "monitor", mon, "host", host, "count", n, "ranks", rr);

	free(rr);
	free(ranks);
	return e;
}

void gather_leave_out(struct monitor *m, int mon, const char *request)
{
	if (mon < 0 || mon >= m->comm.size || mon == m->comm.me || m->gone[mon])
		return;
	m->gone[mon] = true;

	json_t *e = missing_entry(m, mon);
	const char *host = json_string_value(json_object_get(e, "host"));

	log_say("the monitor on %s (monitor %d) did not answer %s: its %lld rank(s) are left out from now on",
		host ? host : "an unknown host", mon, request, (long long)json_integer_value(json_object_get(e, "count")));
	json_array_append_new(m->missing, e);
}

/* Leader: the monitors that did not answer a snapshot, each left out from now on. How many
 * were not before. */
static int note_missing(struct monitor *m, json_t *missing)
{
	size_t i;
	json_t *v;
	char request[64];
	int before = (int)json_array_size(m->missing);

	snprintf(request, sizeof(request), "a snapshot request in %d s", CAPTURE_BUDGET_MS / 1000);
	json_array_foreach(missing, i, v)
		gather_leave_out(m, (int)json_integer_value(v), request);
	return (int)json_array_size(m->missing) - before;
}

/* Leader: a snapshot of every rank of the job the tree reaches, in classes. The other
 * monitors capture their ranks while the leader captures its own. */
json_t *gather_all(struct monitor *m, bool with_record)
{
	json_t *all = NULL;

	/* A monitor that did not answer leaves the ones below it unreached: the snapshot is taken
	 * once more, with them asked by another parent, so every snapshot holds every rank the
	 * monitors can reach. */
	for (int pass = 0; pass < 2; pass++) {
		json_t *missing = json_array(), *unreached = json_array();
		int newly;

		json_decref(all);
		all = gather_subtree(m, with_record ? CMD_CAPTURE_RECORD : CMD_CAPTURE, ++m->snap, CAPTURE_BUDGET_MS,
				     missing, unreached);
		newly = note_missing(m, missing);

		bool again = newly > 0 && json_array_size(unreached) > 0;

		json_decref(unreached);
		json_decref(missing);
		if (!again)
			break;
	}
	return all;
}

/* Follower: the capture command's payload (snapshot, budget, the monitors left out) answered
 * with this monitor's subtree, to the monitor that asked. */
void gather_answer(struct monitor *m, enum comm_cmd cmd, const int *payload, int n, int asker)
{
	if (n < 3)
		return;
	memset(m->gone, 0, (size_t)m->comm.size * sizeof(bool));
	for (int i = 0; i < payload[2] && 3 + i < n; i++)
		if (payload[3 + i] >= 0 && payload[3 + i] < m->comm.size)
			m->gone[payload[3 + i]] = true;

	json_t *missing = json_array(), *unreached = json_array();
	json_t *form = gather_subtree(m, cmd, payload[0], payload[1], missing, unreached);
	json_t *answer = json_pack("{s:i, s:o, s:o, s:o}", "snap", payload[0], "form", form, "missing", missing,
				   "unreached", unreached);

	comm_send_tree_reply(asker, answer);
	json_decref(answer);
}

/* Leader: append every other monitor's reply (a JSON array) to all, waiting for each at most
 * until deadline_ms; a monitor left out is not waited for. */
void gather_replies(struct monitor *m, json_t *all, double deadline_ms)
{
	for (int mon = 0; mon < m->comm.size; mon++) {
		if (mon == m->comm.me || m->gone[mon])
			continue;

		json_t *part = comm_recv_json(mon, deadline_ms);

		if (json_is_array(part))
			json_array_extend(all, part);
		json_decref(part);
	}
}
