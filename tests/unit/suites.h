/* SPDX-License-Identifier: BSD-3-Clause */
/* suites — the Check suites of the unit tests, one per stats/ concept, sched/torque's parsers, the SPANK plugin's stream handoff, and the
 * monitor's stop (snapshot) on real processes. */
#ifndef PARASTACK_TEST_SUITES_H
#define PARASTACK_TEST_SUITES_H

#include <check.h>

Suite *rng_suite(void);
Suite *runs_test_suite(void);
Suite *ladder_suite(void);
Suite *threshold_suite(void);
Suite *detector_suite(void);
Suite *ranksets_suite(void);
Suite *trace_suite(void);
Suite *properties_suite(void);
Suite *report_suite(void);
Suite *torque_suite(void);
Suite *confirm_suite(void);
Suite *snapshot_suite(void);
Suite *waitfor_suite(void);
Suite *snapclass_suite(void);
Suite *pagecache_suite(void);
Suite *waitfor_culprits_suite(void);
Suite *record_check_suite(void);
Suite *stall_suite(void);
Suite *pyframes_suite(void);
Suite *decide_suite(void);
Suite *progress_suite(void);
Suite *tree_suite(void);
Suite *trustedpath_suite(void);
Suite *capture_suite(void);
Suite *layershims_suite(void);
Suite *option_docs_suite(void);
Suite *demangle_suite(void);
Suite *discover_suite(void);
Suite *spank_streams_suite(void);
Suite *unread_ranks_suite(void);
Suite *refind_suite(void);
Suite *runtimes_suite(void);
Suite *report_path_suite(void);
Suite *torchwait_suite(void);
Suite *pylayouts_suite(void);
Suite *prior_suite(void);
Suite *straggler_suite(void);

#endif
