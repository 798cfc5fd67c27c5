/* SPDX-License-Identifier: BSD-3-Clause */
/* site_defaults — options set for everyone, before the command line's own: an administrator's
 * file (SYSCONFDIR/options: /etc/parastack/options unless built otherwise, or the file
 * PARASTACK_CONFIG names) and the environment
 * (PARASTACK_OPTIONS), for the commands that watch jobs (run, attach). The command line wins:
 * its options come later. */
#ifndef PARASTACK_SITE_DEFAULTS_H
#define PARASTACK_SITE_DEFAULTS_H

/* argv (argv[0] the command's name) with the default words inserted after argv[0]; *argc
 * updated. The original argv when there are none; NULL (one line printed) when a file or
 * variable cannot be used. */
char **site_defaults_apply(const char *cmd, int *argc, char **argv);

#endif
