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

/* One byte and room for two descriptors: the message both ends use. */
struct fds_msg {
	char byte;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct msghdr msg;
};

static void fds_msg_init(struct fds_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->byte = 's';
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->control.buf;
	m->msg.msg_controllen = sizeof(m->control.buf);
}

void streams_send(bool task0)
{
	if (task0 && pair[1] >= 0) {
		int fds[2] = { STDOUT_FILENO, STDERR_FILENO };
		struct fds_msg m;
		struct cmsghdr *c;

		fds_msg_init(&m);
		c = CMSG_FIRSTHDR(&m.msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(fds));
		memcpy(CMSG_DATA(c), fds, sizeof(fds));
		/* Never waits: one byte into an empty socket's buffer. */
		while (sendmsg(pair[1], &m.msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR)
			;
	}
	streams_close();
}

int streams_receive(int *out, int *err, int timeout_ms)
{
	int fds[2] = { -1, -1 }, rc = -1;
	struct fds_msg m;
	struct pollfd p = { .fd = pair[0], .events = POLLIN };

	if (pair[0] < 0)
		return -1;
	/* Only the task may send: the watcher's copy of the task's end goes, so that the task's
	 * end of its last copy closing (a task that never reached its exec) reads as the end. */
	if (pair[1] >= 0)
		close(pair[1]);
	pair[1] = -1;
	fds_msg_init(&m);
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
	if ((p.revents & POLLIN) && recvmsg(pair[0], &m.msg, MSG_CMSG_CLOEXEC) == 1) {
		struct cmsghdr *c = CMSG_FIRSTHDR(&m.msg);

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
