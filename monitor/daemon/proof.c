/* SPDX-License-Identifier: BSD-3-Clause */
/* proof — a hang the recording layer's records prove, acted on without the window (issue 68).
 *
 * The confirmation window (stats/confirm.c) is for hangs only the stacks show: a rank spinning
 * in its own loop looks the same as one computing slowly, so only time tells them apart. The
 * records can say more: a collective call that does not match the others' (MPI/SX's check), a
 * cycle of ranks each blocked on the next with complete counters, a collective every member but
 * one waits in while that one is blocked on a rank inside it, a rank gone that others wait for.
 * Such a hang cannot end by itself, whatever time is given. So once nothing has moved for
 * PROOF_QUIET_MS, with ranks seen waiting in MPI unchanged, the leader reads every rank's record
 * (one snapshot, as a report takes) and asks the wait-for analysis (hang/waitfor.c's "proof");
 * where it proves the hang, a second snapshot PROOF_RECHECK_MS later must show the same proof
 * and not one rank's record changed (no call returned, no counter moved): then the hang is
 * confirmed, basis "records". A snapshot that proves nothing costs a stop of every rank, so the
 * probes back off (PROOF_GAP_MIN_MS doubling to PROOF_GAP_MAX_MS between them), and a job
 * whose ranks hold no record (no layer, --no-record) is never probed again. Owns struct
 * monitor's proof fields. */
#include "proof.h"

#include <string.h>

#include "../hang/snapclass.h"
#include "../hang/waitfor.h"
#include "gather.h"

/* A snapshot of every rank with its record, as rank objects sorted by rank (NULL: none). */
static json_t *snapshot_ranks(struct monitor *m)
{
	json_t *form = gather_all(m, true), *ranks = form ? snapclass_expand(form) : NULL;

	json_decref(form);
	return ranks;
}

/* The records' proof in ranks (snapshot_ranks), copied into buf; false when none. *records:
 * whether any rank held a record. */
static bool snapshot_proof(json_t *ranks, char *buf, size_t len, bool *records)
{
	json_t *wf = ranks ? waitfor_analyze(ranks) : NULL;
	const char *proof = json_string_value(json_object_get(wf, "proof"));

	*records = wf != NULL;
	if (proof)
		snprintf(buf, len, "%s", proof);
	json_decref(wf);
	return proof != NULL;
}

/* Has any rank's record changed between two snapshot_ranks? A rank present in one and not the
 * other counts as a change. */
static bool records_changed(json_t *ra, json_t *rb)
{
	bool changed = !ra || !rb || json_array_size(ra) != json_array_size(rb);

	for (size_t i = 0; !changed && i < json_array_size(ra); i++) {
		json_t *x = json_array_get(ra, i), *y = json_array_get(rb, i);

		changed = json_integer_value(json_object_get(x, "rank")) != json_integer_value(json_object_get(y, "rank")) ||
			  !json_equal(json_object_get(x, "record"), json_object_get(y, "record"));
	}
	return changed;
}

void proof_init(struct monitor *m)
{
	m->proof_gap_ms = PROOF_GAP_MIN_MS;
	m->proof_next_ms = 0;
	m->proof_off = m->w.no_record || m->w.no_proof;
}

bool proof_due(const struct monitor *m, double t_ms, const struct sample_counts *c)
{
	/* Start-up (ranks in MPI_Init) has no records yet: the layer stamps its area there. */
	return !m->proof_off && !m->reported && c->moved == 0 && c->still > 0 && c->init == 0 &&
	       t_ms >= m->proof_next_ms && confirm_quiet_for(&m->conf, t_ms, PROOF_QUIET_MS);
}

bool proof_check(struct monitor *m, double t_ms, char *why, size_t len)
{
	bool records = false, proven;
	json_t *first = snapshot_ranks(m);

	proven = snapshot_proof(first, why, len, &records);
	if (proven) {
		sleep_ms(PROOF_RECHECK_MS);

		json_t *second = snapshot_ranks(m);
		char again[PROOF_TEXT_MAX];
		bool still = snapshot_proof(second, again, sizeof(again), &records);

		proven = still && !strcmp(again, why) && !records_changed(first, second);
		json_decref(second);
	}
	json_decref(first);
	if (!records)
		m->proof_off = true; /* no rank has a record: nothing to prove from, ever */
	if (!proven) {
		m->proof_next_ms = t_ms + m->proof_gap_ms;
		m->proof_gap_ms = m->proof_gap_ms * 2 > PROOF_GAP_MAX_MS ? PROOF_GAP_MAX_MS : m->proof_gap_ms * 2;
	}
	return proven;
}
