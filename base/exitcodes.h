/* SPDX-License-Identifier: BSD-3-Clause */
/* exitcodes — how parastack-monitor ends, for the launcher that started it. */
#ifndef PARASTACK_EXITCODES_H
#define PARASTACK_EXITCODES_H

#define MONITOR_EXIT_NONE 0  /* the job ended (or the monitor was told to stop) without a hang */
#define MONITOR_EXIT_ERROR 1 /* the monitor could not do its work */
#define MONITOR_EXIT_USAGE 2 /* bad options */
#define MONITOR_EXIT_HANG 3  /* a hang was reported and --on-hang=kill asks to end the job */

/* `parastack run`: the job hung and parastack ended it. */
#define PARASTACK_EXIT_HUNG 86

/* --status-file -: the leader's last line on standard output starts with this. */
#define MONITOR_STATUS_PREFIX "parastack-monitor: outcome "
/* --status-file FILE: the leader writes its pid to FILE this suffix, for `parastack run`. */
#define MONITOR_PID_SUFFIX ".pid"

#endif
