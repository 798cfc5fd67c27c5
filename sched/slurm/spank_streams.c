/* SPDX-License-Identifier: BSD-3-Clause */
/* spank_streams — the watched task's standard streams handed to its watcher (spank_streams.h). */
#include "spank_streams.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int pair[2] = { -1, -1 }; /* [0] the watcher's end, [1] the task's */

int streams_open(void)
{
	streams_close();
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
}

void streams_close(void)
{
	for (int i = 0; i < 2; i++) {
		if (pair[i] >= 0)
			close(pair[i]);
		pair[i] = -1;
	}
}

void streams_send(bool task0)
{
	if (task0 && pair[1] >= 0) {
		int fds[2] = { STDOUT_FILENO, STDERR_FILENO };
		char byte = 's';
		union {
			char buf[CMSG_SPACE(sizeof(fds))];
			struct cmsghdr align;
		} control;
		struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
				      .msg_controllen = sizeof(control.buf) };
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
		/* Nonblocking in effect: one byte into an empty socket's buffer never waits. */
		while (sendmsg(pair[1], &msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR)
			;
	}
	streams_close();
}

int streams_receive(int *out, int *err, int timeout_ms)
{
	int fds[2] = { -1, -1 }, rc = -1;
	char byte;
	union {
		char buf[CMSG_SPACE(sizeof(fds))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct pollfd p = { .fd = pair[0], .events = POLLIN };

	if (pair[0] < 0)
		return -1;
	/* Only the task may send: the watcher's copy of the task's end goes, so that the task's
	 * end of its last copy closing (a task that never reached its exec) reads as the end. */
	if (pair[1] >= 0)
		close(pair[1]);
	pair[1] = -1;
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
	if ((p.revents & POLLIN) && recvmsg(pair[0], &msg, MSG_CMSG_CLOEXEC) == 1) {
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(fds))) {
			memcpy(fds, CMSG_DATA(c), sizeof(fds));
			*out = fds[0];
			*err = fds[1];
			rc = 0;
		}
	}
	streams_close();
	return rc;
}
