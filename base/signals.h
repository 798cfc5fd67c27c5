/* SPDX-License-Identifier: BSD-3-Clause */
/* signals — the terminating signals (INT, TERM, HUP) that every long-running parastack program
 * handles itself: installing a handler also undoes the "ignored" SIGINT a shell gives its
 * background jobs, which would otherwise make such a program impossible to stop politely. */
#ifndef PARASTACK_SIGNALS_H
#define PARASTACK_SIGNALS_H

/* Call handler(sig) on SIGINT, SIGTERM and SIGHUP (no SA_RESTART: blocking calls see EINTR). */
void signals_install(void (*handler)(int));

#include <signal.h>

/* The last of those signals caught since signals_catch() (0: none); its reader resets it. */
extern volatile sig_atomic_t signals_caught;

/* signals_install with a handler that only records the signal in signals_caught. */
void signals_catch(void);

/* Record SIGUSR1 in signals_caught too (no SA_RESTART), for a launcher to pass it on. */
void signals_catch_usr1(void);

/* SIGUSR1 asks for a status line: counted in status_requests (never terminates). */
extern volatile sig_atomic_t status_requests;
void signals_catch_status(void);

/* A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes one line naming the signal and
 * `who` (async-signal-safe), then dies of it as it would have: a monitor never stops in
 * silence, and its parent still sees the signal. */
void signals_catch_fatal(const char *who);

#endif
