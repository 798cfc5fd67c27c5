/* signals — see signals.h. */
#include "signals.h"

#include <signal.h>
#include <stddef.h>

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
