/* SPDX-License-Identifier: BSD-3-Clause */
/* signals — see signals.h. */
#include "signals.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

void signals_install(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

volatile sig_atomic_t signals_caught;

static void record(int sig)
{
	signals_caught = sig;
}

void signals_catch(void)
{
	signals_install(record);
}

void signals_catch_usr1(void)
{
	struct sigaction sa = { .sa_handler = record };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

volatile sig_atomic_t status_requests;

static void count_status(int sig)
{
	(void)sig;
	status_requests++;
}

void signals_catch_status(void)
{
	struct sigaction sa = { .sa_handler = count_status, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

static const char *fatal_who = "parastack";

static void say_fatal(int sig)
{
	const char *name = sigabbrev_np(sig);

	/* write(2) only: the heap or stdio may be what broke. */
	(void)!write(2, "parastack: ", 11);
	(void)!write(2, fatal_who, strlen(fatal_who));
	(void)!write(2, " crashed (SIG", 13);
	(void)!write(2, name ? name : "?", name ? strlen(name) : 1);
	(void)!write(2, "); its watch ends here - please report it with the job's launch line\n", 70);
	raise(sig); /* SA_RESETHAND: the default action now */
}

void signals_catch_fatal(const char *who)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa = { .sa_handler = say_fatal, .sa_flags = SA_RESETHAND | SA_NODEFER };

	fatal_who = who;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
}
