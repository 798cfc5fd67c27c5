/* SPDX-License-Identifier: BSD-3-Clause */
/* trustedpath — the one place a root monitor (or the SPANK plugin in slurmstepd) may write as
 * root: a directory that root alone can change, every component from / down owned by root,
 * writable by no one else and none of them a link (OpenSSH's StrictModes rule). Everywhere else
 * files are written as the job's owner (ownedfile.h). Stands alone: the plugin links it. */
#ifndef PARASTACK_TRUSTEDPATH_H
#define PARASTACK_TRUSTEDPATH_H

#include <stdbool.h>
#include <sys/types.h>

/* Is dirpath (absolute) such a directory? Then *group is its group. */
bool trustedpath_root_only(const char *dirpath, gid_t *group);

#endif
