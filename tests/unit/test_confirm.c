/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the confirmation step (stats/confirm.c): when a suspicion opens a window, what
 * dismisses it, when it confirms, and hangs confirmed by progress evidence alone. */
#include "../../stats/confirm.h"
#include "suites.h"

/* One sample every 500 ms; `moved` and `still` as the monitor counted them. */
static enum confirm_event feed(struct confirm *c, double t_s, enum detector_verdict v, int moved,
			       int still)
{
	/* A hang verdict's run goes on while the model keeps saying hang or suspicion. */
	struct confirm_sample s = { .t_ms = t_s * 1e3, .verdict = v, .live = 4, .moved = moved,
				    .still = still,
				    .hang_ongoing = v == DETECTOR_HANG || v == DETECTOR_SUSPECT };

	return confirm_add(c, &s);
}

START_TEST(suspicion_then_confirmation_after_the_window)
{
	struct confirm c;

	confirm_init(&c, 10);
	ck_assert_int_eq(feed(&c, 1, DETECTOR_HEALTHY, 1, 0), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 2, DETECTOR_HANG, 0, 2), CONFIRM_SUSPECTED);
	for (double t = 2.5; t < 12; t += 0.5)
		ck_assert_int_eq(feed(&c, t, DETECTOR_HANG, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 12, DETECTOR_HANG, 0, 2), CONFIRM_HANG);
	ck_assert_int_eq(c.basis, CONFIRM_BY_MODEL);
	ck_assert(!confirm_is_io(&c));
	/* Reported, still watching: it stays one hang until it moves. */
	ck_assert_int_eq(feed(&c, 13, DETECTOR_HANG, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 14, DETECTOR_HANG, 1, 1), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 15, DETECTOR_HANG, 1, 1), CONFIRM_RESOLVED);
}
END_TEST

START_TEST(a_rank_that_moves_dismisses)
{
	struct confirm c;

	confirm_init(&c, 60);
	ck_assert_int_eq(feed(&c, 30, DETECTOR_HANG, 0, 0), CONFIRM_SUSPECTED);
	ck_assert_int_eq(feed(&c, 45, DETECTOR_HANG, 0, 3), CONFIRM_NOTHING);
	/* One odd sample is not movement enough; a second one is. */
	ck_assert_int_eq(feed(&c, 50, DETECTOR_HANG, 1, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 51, DETECTOR_HANG, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 52, DETECTOR_HANG, 1, 2), CONFIRM_MOVED);
	ck_assert_int_eq(c.dismissed, 1);
	/* Suspected again later: a new window. */
	ck_assert_int_eq(feed(&c, 70, DETECTOR_HANG, 0, 1), CONFIRM_SUSPECTED);
	/* The model no longer finds the samples suspicious: computing again. */
	ck_assert_int_eq(feed(&c, 71, DETECTOR_HEALTHY, 0, 0), CONFIRM_MOVED);
}
END_TEST

/* The rank set that holds a faulty rank in application code is sampled: not a suspicion for
 * that set, but the hang's run goes on, and the window with it. */
START_TEST(the_faulty_ranks_set_does_not_dismiss)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_HANG, .hang_ongoing = true, .still = 1 };

	confirm_init(&c, 10);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
	s.t_ms = 5e3;
	s.verdict = DETECTOR_HEALTHY;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	s.t_ms = 10e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
	/* Reported: resolved only when the run ends or a rank moves. */
	s.t_ms = 11e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	s.hang_ongoing = false;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_RESOLVED);
}
END_TEST

START_TEST(no_confirmation_without_evidence)
{
	struct confirm c;

	confirm_init(&c, 5);
	ck_assert_int_eq(feed(&c, 0, DETECTOR_HANG, 0, 0), CONFIRM_SUSPECTED);
	/* Nothing compared yet (no rank sampled twice): the window runs out, and waits. */
	ck_assert_int_eq(feed(&c, 6, DETECTOR_HANG, 0, 0), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 7, DETECTOR_HANG, 0, 1), CONFIRM_HANG);
}
END_TEST

START_TEST(window_grows_with_the_longest_healthy_run)
{
	struct confirm c;
	struct confirm_sample s = { .t_ms = 0, .verdict = DETECTOR_HANG, .hang_ongoing = true,
				    .longest_healthy_ms = 20e3, .still = 1 };

	confirm_init(&c, 10);
	ck_assert_double_eq_tol(confirm_window_ms(&c, 20e3), 40e3, 1e-9);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
	s.t_ms = 30e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	s.t_ms = 40e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
}
END_TEST

START_TEST(confirm_zero_acts_on_the_verdict)
{
	struct confirm c;

	confirm_init(&c, 0);
	ck_assert_double_eq(confirm_window_ms(&c, 50e3), 0);
	ck_assert_int_eq(feed(&c, 3, DETECTOR_HANG, 0, 0), CONFIRM_HANG);
	/* And never confirms on evidence alone without a verdict. */
	confirm_init(&c, 0);
	for (double t = 0; t < 100; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 3), CONFIRM_NOTHING);
}
END_TEST

START_TEST(hang_without_history_by_evidence_alone)
{
	struct confirm c;

	confirm_init(&c, 20);
	/* No model ever: ranks wait unmoved from the start. Suspected after half a window. */
	ck_assert_int_eq(feed(&c, 0, DETECTOR_BUILDING, 0, 0), CONFIRM_NOTHING);
	for (double t = 1; t < 10; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 10, DETECTOR_BUILDING, 0, 2), CONFIRM_SUSPECTED);
	for (double t = 11; t < 20; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 20, DETECTOR_BUILDING, 0, 2), CONFIRM_HANG);
	ck_assert_int_eq(c.basis, CONFIRM_BY_EVIDENCE);
	ck_assert_double_eq(c.suspected_ms, 0);
}
END_TEST

/* One sample with the model's history in force (model_ready) or not. */
static enum confirm_event feed_ready(struct confirm *c, double t_s, enum detector_verdict v,
				     int moved, int still, bool ready)
{
	struct confirm_sample s = { .t_ms = t_s * 1e3, .verdict = v, .live = 4, .moved = moved,
				    .still = still, .model_ready = ready,
				    .hang_ongoing = v == DETECTOR_HANG || v == DETECTOR_SUSPECT };

	return confirm_add(c, &s);
}

/* The demo's case (issue 30): a hang that begins after the model has a history is the model's
 * to suspect. Quiet evidence alone does not open a window then within a whole window, so the
 * basis cannot depend on which of the two came first. */
START_TEST(with_history_only_the_model_suspects)
{
	struct confirm c;

	confirm_init(&c, 15);
	for (double t = 0; t < 25; t += 0.5)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 1, 1, t >= 10), CONFIRM_NOTHING);
	/* The fault: nothing moves any more; the model needs a while (the faulty rank's set). */
	for (double t = 25; t < 39; t += 0.5)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 39, DETECTOR_HANG, 0, 2, true), CONFIRM_SUSPECTED);
	ck_assert_int_eq(c.basis, CONFIRM_BY_MODEL);
	ck_assert_double_eq(c.suspected_ms, 39e3);
	for (double t = 39.5; t < 54; t += 0.5)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HANG, 0, 2, true), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 54, DETECTOR_HANG, 0, 2, true), CONFIRM_HANG);
	ck_assert_int_eq(c.basis, CONFIRM_BY_MODEL);
}
END_TEST

/* A model that was ready but does not suspect this hang (its S above the model's threshold):
 * after two whole windows with nothing moved the evidence suspects, and the hang is confirmed
 * half a window later - never silent. */
START_TEST(a_hang_no_ready_model_suspects_is_the_evidences_after_a_window)
{
	struct confirm c;

	confirm_init(&c, 20);
	ck_assert_int_eq(feed_ready(&c, 0, DETECTOR_HEALTHY, 1, 1, true), CONFIRM_NOTHING);
	for (double t = 1; t < 40; t += 1)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 40, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_SUSPECTED);
	ck_assert_int_eq(c.basis, CONFIRM_BY_EVIDENCE);
	ck_assert_double_eq(c.deadline_ms, 50e3);
	for (double t = 41; t < 50; t += 1)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 50, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_HANG);
}
END_TEST

/* A hang that began while the model was still building stays an early hang when the model
 * becomes usable during it (its own samples may teach the model): evidence confirms it. */
START_TEST(an_early_hang_stays_early_when_the_model_becomes_ready)
{
	struct confirm c;

	confirm_init(&c, 20);
	for (double t = 0; t < 10; t += 1)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_BUILDING, 0, 2, t >= 4), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 10, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_SUSPECTED);
	ck_assert_int_eq(c.basis, CONFIRM_BY_EVIDENCE);
	for (double t = 11; t < 20; t += 1)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_NOTHING);
	ck_assert_int_eq(feed_ready(&c, 20, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_HANG);
	/* Once a rank moved with the model in force, a later quiet stretch is the model's for two
	 * whole windows (then the evidence's: the test above). */
	confirm_init(&c, 20);
	ck_assert_int_eq(feed_ready(&c, 0, DETECTOR_HEALTHY, 1, 1, true), CONFIRM_NOTHING);
	for (double t = 1; t < 40; t += 1)
		ck_assert_int_eq(feed_ready(&c, t, DETECTOR_HEALTHY, 0, 2, true), CONFIRM_NOTHING);
}
END_TEST

START_TEST(movement_restarts_the_quiet_stretch)
{
	struct confirm c;

	confirm_init(&c, 20);
	for (double t = 0; t < 9; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 9, DETECTOR_BUILDING, 1, 1), CONFIRM_NOTHING);
	for (double t = 10; t < 19; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 19, DETECTOR_BUILDING, 0, 2), CONFIRM_SUSPECTED);
	/* A window opened on evidence closes only when something moves. */
	ck_assert_int_eq(feed(&c, 20, DETECTOR_HEALTHY, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 21, DETECTOR_BUILDING, 1, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 22, DETECTOR_BUILDING, 2, 0), CONFIRM_MOVED);
	/* Ranks that compute (OUT_MPI, neither moved nor still) never make a hang by themselves. */
	confirm_init(&c, 20);
	for (double t = 0; t < 100; t += 1)
		ck_assert_int_eq(feed(&c, t, DETECTOR_BUILDING, 0, 0), CONFIRM_NOTHING);
}
END_TEST

START_TEST(ranks_in_mpi_init_are_starting)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_BUILDING, .still = 2, .init = 2 };

	confirm_init(&c, 20);
	for (s.t_ms = 0; s.t_ms < CONFIRM_INIT_GRACE_S * 1e3 / 2; s.t_ms += 1000)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
	for (s.t_ms += 1000; s.t_ms < CONFIRM_INIT_GRACE_S * 1e3; s.t_ms += 1000)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
}
END_TEST

/* Most ranks wait in the rendezvous while two still import torch: a sample set that holds
 * none of the waiting ones (every other sample here) does not end the start-up; a rank that
 * moves does, and a quiet stretch after it is judged by the plain window. */
START_TEST(start_up_outlasts_samples_that_miss_it)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_BUILDING, .still = 2 };

	confirm_init(&c, 5);
	for (s.t_ms = 0; s.t_ms < 60e3; s.t_ms += 500) {
		s.init = (long)(s.t_ms / 500) % 2 == 0 ? 2 : 0;
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	}
	s.init = 0;
	s.moved = 1;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	s.moved = 0;
	for (s.t_ms += 500; s.t_ms < 62.5e3; s.t_ms += 500)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
}
END_TEST

/* Issue 68: ranks wait in MPI_Init while one, not there yet, stands still outside it (blocked
 * in a read no one answers): the plain window, counted from when it was first found so, not
 * the start-up's grace. Its set is sampled every other time here (the sets alternate). */
START_TEST(a_rank_that_stands_still_before_mpi_init_is_a_hang)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_BUILDING, .still = 2, .init = 2 };
	double idle_from = 10e3;
	enum confirm_event ev = CONFIRM_NOTHING;

	confirm_init(&c, 60);
	for (s.t_ms = 0; s.t_ms < 200e3 && ev != CONFIRM_HANG; s.t_ms += 500) {
		s.idle = s.t_ms >= idle_from && (long)(s.t_ms / 500) % 2 == 0;
		ev = confirm_add(&c, &s);
		if (ev == CONFIRM_SUSPECTED)
			ck_assert_double_ge(s.t_ms, 30e3);
		else if (ev != CONFIRM_HANG)
			ck_assert_int_eq(ev, CONFIRM_NOTHING);
	}
	ck_assert_int_eq(ev, CONFIRM_HANG);
	ck_assert_double_eq_tol(c.deadline_ms, idle_from + 60e3, 1);
	ck_assert_double_le(s.t_ms, idle_from + 61e3);
}
END_TEST

/* The same start-up with the rank found busy now and then (reading its input, importing):
 * the grace holds however long it takes; a pause it showed before getting busy again sets the
 * window (twice that pause) once it stands still for good. */
START_TEST(a_rank_that_loads_before_mpi_init_keeps_the_grace)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_BUILDING, .still = 2, .init = 2 };
	enum confirm_event ev;

	confirm_init(&c, 60);
	for (s.t_ms = 0; s.t_ms < 400e3; s.t_ms += 500) {
		long i = (long)(s.t_ms / 500);

		s.busy = i % 20 == 0;
		s.idle = !s.busy && i % 2 == 0;
		ev = confirm_add(&c, &s);
		ck_assert(ev == CONFIRM_NOTHING || ev == CONFIRM_SUSPECTED);
	}
	ck_assert(c.state != HUNG);
	/* Busy, a 50-s pause, busy again, then still for good: 100 s from then, not 60. */
	s.busy = 1;
	s.idle = 0;
	ck_assert_int_ne(confirm_add(&c, &s), CONFIRM_HANG);
	s.t_ms += 500;
	s.busy = 0;
	s.idle = 1;
	for (double until = s.t_ms + 50e3; s.t_ms < until; s.t_ms += 500)
		ck_assert_int_ne(confirm_add(&c, &s), CONFIRM_HANG);
	s.busy = 1;
	s.idle = 0;
	ck_assert_int_ne(confirm_add(&c, &s), CONFIRM_HANG);
	s.busy = 0;
	s.idle = 1;
	double still_from = s.t_ms += 500;

	for (ev = CONFIRM_NOTHING; ev != CONFIRM_HANG && s.t_ms < still_from + 200e3; s.t_ms += 500)
		ev = confirm_add(&c, &s);
	ck_assert_int_eq(ev, CONFIRM_HANG);
	ck_assert_double_ge(s.t_ms, still_from + 100e3 - 500);
	ck_assert_double_le(s.t_ms, still_from + 101e3);
}
END_TEST

START_TEST(ranks_in_the_kernel_are_an_io_hang)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_HANG, .hang_ongoing = true, .kernel = 1 };

	confirm_init(&c, 10);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
	s.t_ms = 10e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
	ck_assert(confirm_is_io(&c));
	/* One sample of the window without a rank in D: not an io hang. */
	confirm_init(&c, 10);
	s.t_ms = 0;
	confirm_add(&c, &s);
	s.kernel = 0;
	s.still = 1;
	s.t_ms = 5e3;
	confirm_add(&c, &s);
	s.kernel = 1;
	s.t_ms = 10e3;
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
	ck_assert(!confirm_is_io(&c));
}
END_TEST

/* Ranks computing, then every one of them in the kernel for good (a hung file system), with no
 * model verdict (S stays at C): the window counts from when they all sat there. */
START_TEST(ranks_settling_into_the_kernel)
{
	struct confirm c;
	struct confirm_sample s = { .verdict = DETECTOR_BUILDING };

	confirm_init(&c, 10);
	for (s.t_ms = 0; s.t_ms < 3e3; s.t_ms += 500)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	/* The stretch starts at the last sample without evidence (2.5 s). */
	s.kernel = 3;
	for (; s.t_ms < 7.5e3; s.t_ms += 500)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_SUSPECTED);
	for (s.t_ms += 500; s.t_ms < 12.5e3; s.t_ms += 500)
		ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_NOTHING);
	ck_assert_int_eq(confirm_add(&c, &s), CONFIRM_HANG);
	ck_assert(confirm_is_io(&c));
}
END_TEST

/* The records prove a hang (issue 68): the quiet stretch is the cue (its evidence, its length),
 * the proof confirms at once, basis "records"; only movement resolves it (no model run to end). */
START_TEST(a_proof_confirms_without_the_window)
{
	struct confirm c;

	confirm_init(&c, 60);
	ck_assert_int_eq(feed(&c, 1, DETECTOR_HEALTHY, 1, 0), CONFIRM_NOTHING);
	ck_assert(!confirm_quiet_for(&c, 1e3, 2000));
	ck_assert_int_eq(feed(&c, 1.5, DETECTOR_HEALTHY, 0, 0), CONFIRM_NOTHING);
	ck_assert(!confirm_quiet_for(&c, 1.5e3, 0)); /* no evidence yet: ranks computing */
	for (double t = 2; t <= 4; t += 0.5)
		ck_assert_int_eq(feed(&c, t, DETECTOR_HEALTHY, 0, 2), CONFIRM_NOTHING);
	/* The stretch counts from the last sample that saw nothing move (1.5 s). */
	ck_assert(!confirm_quiet_for(&c, 3e3, 2000));
	ck_assert(confirm_quiet_for(&c, 3.5e3, 2000));
	confirm_prove(&c, 4e3);
	ck_assert_int_eq(c.state, HUNG);
	ck_assert_str_eq(confirm_basis_name(c.basis), "records");
	ck_assert_int_eq(c.suspicions, 1);
	ck_assert(!confirm_quiet_for(&c, 5e3, 0)); /* reported: no second probe */
	ck_assert_int_eq(feed(&c, 5, DETECTOR_HEALTHY, 0, 2), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 6, DETECTOR_HEALTHY, 1, 1), CONFIRM_NOTHING);
	ck_assert_int_eq(feed(&c, 7, DETECTOR_HEALTHY, 1, 1), CONFIRM_RESOLVED);
}
END_TEST

Suite *confirm_suite(void)
{
	Suite *s = suite_create("confirm");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, suspicion_then_confirmation_after_the_window);
	tcase_add_test(tc, a_proof_confirms_without_the_window);
	tcase_add_test(tc, a_rank_that_moves_dismisses);
	tcase_add_test(tc, the_faulty_ranks_set_does_not_dismiss);
	tcase_add_test(tc, no_confirmation_without_evidence);
	tcase_add_test(tc, window_grows_with_the_longest_healthy_run);
	tcase_add_test(tc, confirm_zero_acts_on_the_verdict);
	tcase_add_test(tc, hang_without_history_by_evidence_alone);
	tcase_add_test(tc, movement_restarts_the_quiet_stretch);
	tcase_add_test(tc, with_history_only_the_model_suspects);
	tcase_add_test(tc, a_hang_no_ready_model_suspects_is_the_evidences_after_a_window);
	tcase_add_test(tc, an_early_hang_stays_early_when_the_model_becomes_ready);
	tcase_add_test(tc, ranks_in_mpi_init_are_starting);
	tcase_add_test(tc, start_up_outlasts_samples_that_miss_it);
	tcase_add_test(tc, a_rank_that_stands_still_before_mpi_init_is_a_hang);
	tcase_add_test(tc, a_rank_that_loads_before_mpi_init_keeps_the_grace);
	tcase_add_test(tc, ranks_in_the_kernel_are_an_io_hang);
	tcase_add_test(tc, ranks_settling_into_the_kernel);
	suite_add_tcase(s, tc);
	return s;
}
