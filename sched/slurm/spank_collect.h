/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_collect — the site's files for a job whose owner runs the watch. Slurm lets only the
 * job's owner start the monitors' step, so for a user's job the plugin runs the watch as that
 * user, whose monitors cannot write root's directories. They write into a spool the plugin (root,
 * in slurmstepd) makes for the step — /run/parastack/JOB.STEP.PID, the user's, 0700 —
 * and when the watch ends the plugin copies the report into report_dir (root's file, 0640, the
 * directory's group) and adds the counters to metrics_dir's textfile, then removes the spool. */
#ifndef PARASTACK_SPANK_COLLECT_H
#define PARASTACK_SPANK_COLLECT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

struct spool {
	char dir[PATH_MAX];
	uid_t uid;
	gid_t gid;
	bool made;
};

/* The step's spool, owned by uid/gid. 0, or -1 with a one-line reason in err (nothing made). */
int spool_make(struct spool *s, uint32_t job, uint32_t step, uid_t uid, gid_t gid, char *err, size_t len);
/* The watch has ended: the report (parastack-JOB.json) into report_dir and the counters into
 * metrics_dir's textfile ("" for either: not kept), then the spool removed. */
void spool_collect(struct spool *s, const char *report_dir, const char *metrics_dir, uint32_t job);

#endif
