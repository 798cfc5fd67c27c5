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
