/* SPDX-License-Identifier: BSD-3-Clause */
/* The unit-test runner: every stats/ suite in one Check run. */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(rng_suite());

	srunner_add_suite(sr, runs_test_suite());
	srunner_add_suite(sr, ladder_suite());
	srunner_add_suite(sr, threshold_suite());
	srunner_add_suite(sr, detector_suite());
	srunner_add_suite(sr, ranksets_suite());
	srunner_add_suite(sr, trace_suite());
	srunner_add_suite(sr, properties_suite());
	srunner_add_suite(sr, report_suite());
	srunner_add_suite(sr, torque_suite());
	srunner_add_suite(sr, confirm_suite());
	srunner_add_suite(sr, snapshot_suite());
	srunner_add_suite(sr, waitfor_suite());
	srunner_add_suite(sr, snapclass_suite());
	srunner_add_suite(sr, pagecache_suite());
	srunner_add_suite(sr, waitfor_culprits_suite());
	srunner_add_suite(sr, record_check_suite());
	srunner_add_suite(sr, stall_suite());
	srunner_add_suite(sr, straggler_suite());
	srunner_add_suite(sr, prior_suite());
	srunner_add_suite(sr, pyframes_suite());
	srunner_add_suite(sr, decide_suite());
	srunner_add_suite(sr, progress_suite());
	srunner_add_suite(sr, tree_suite());
	srunner_add_suite(sr, discover_suite());
	srunner_add_suite(sr, trustedpath_suite());
	srunner_add_suite(sr, capture_suite());
	srunner_add_suite(sr, layershims_suite());
	srunner_add_suite(sr, option_docs_suite());
	srunner_add_suite(sr, demangle_suite());
	srunner_add_suite(sr, spank_streams_suite());
	srunner_add_suite(sr, unread_ranks_suite());
	srunner_add_suite(sr, refind_suite());
	srunner_add_suite(sr, pylayouts_suite());
	srunner_add_suite(sr, runtimes_suite());
	srunner_add_suite(sr, report_path_suite());
	srunner_add_suite(sr, torchwait_suite());
	srunner_run_all(sr, CK_NORMAL);

	int failed = srunner_ntests_failed(sr);

	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
