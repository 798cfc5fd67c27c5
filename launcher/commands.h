/* SPDX-License-Identifier: BSD-3-Clause */
/* commands — the subcommands of the `parastack` command. */
#ifndef PARASTACK_COMMANDS_H
#define PARASTACK_COMMANDS_H

int cmd_replay(int argc, char **argv);
int cmd_stack(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_view(int argc, char **argv);

#endif
