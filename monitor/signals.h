/* signals — the terminating signals (INT, TERM, HUP) that every long-running parastack program
 * handles itself: installing a handler also undoes the "ignored" SIGINT a shell gives its
 * background jobs, which would otherwise make such a program impossible to stop politely. */
#ifndef PARASTACK_SIGNALS_H
#define PARASTACK_SIGNALS_H

/* Call handler(sig) on SIGINT, SIGTERM and SIGHUP (no SA_RESTART: blocking calls see EINTR). */
void signals_install(void (*handler)(int));

#endif
