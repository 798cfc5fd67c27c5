/* SPDX-License-Identifier: BSD-3-Clause */
/* lookup_torque — a Torque job seen through its environment, its node file and qdel. */
#include "lookup_torque.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Host names as node files hold them: letters, digits, '.', '-', '_'. */
static bool valid_host(const char *h)
{
	if (!*h || strlen(h) >= SCHED_TORQUE_NAME_MAX)
		return false;
	for (const char *c = h; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
			return false;
	return true;
}

/* A whole number >= 0 from the variable name, or -1 when unset or not a number. */
static int env_count(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	return *end || errno || n < 0 || n > 1000000 ? -1 : (int)n;
}

/* Strip leading and trailing white space in place; the stripped start. */
static char *strip(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	for (char *e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		e[-1] = '\0';
	return s;
}

static unsigned host_hash(const char *h)
{
	unsigned x = 2166136261u;

	for (; *h; h++)
		x = (x ^ (unsigned char)*h) * 16777619u;
	return x;
}

/* The slot of host in j's hash (its index there, or the empty place it would take). */
static int *index_slot(struct torque_job *j, const char *host)
{
	unsigned mask = (unsigned)j->index_cap - 1, k = host_hash(host) & mask;

	while (j->host_index[k] >= 0 && strcmp(j->hosts[j->host_index[k]], host))
		k = (k + 1) & mask;
	return &j->host_index[k];
}

/* Room for one more host: the arrays doubled, the hash rebuilt at twice their size. -1 when
 * out of memory or past SCHED_TORQUE_HOSTS_MAX. */
static int grow_hosts(struct torque_job *j)
{
	int cap = j->hosts_cap ? 2 * j->hosts_cap : 64;
	void *hosts, *slots, *index;

	if (j->nhosts < j->hosts_cap)
		return 0;
	if (j->nhosts >= SCHED_TORQUE_HOSTS_MAX)
		return -1;
	hosts = realloc(j->hosts, (size_t)cap * sizeof(*j->hosts));
	if (hosts)
		j->hosts = hosts;
	slots = hosts ? realloc(j->host_slots, (size_t)cap * sizeof(int)) : NULL;
	if (slots)
		j->host_slots = slots;
	index = slots ? malloc((size_t)cap * 2 * sizeof(int)) : NULL;
	if (!index)
		return -1;
	free(j->host_index);
	j->host_index = index;
	j->index_cap = cap * 2;
	j->hosts_cap = cap;
	memset(j->host_index, 0xff, (size_t)j->index_cap * sizeof(int));
	for (int i = 0; i < j->nhosts; i++)
		*index_slot(j, j->hosts[i]) = i;
	return 0;
}

/* Count one slot of host in j. -1 when there are too many distinct hosts, or no memory. */
static int add_slot(struct torque_job *j, const char *host)
{
	int *at = NULL, i = -1;

	if (j->nhosts && !strcmp(j->hosts[j->nhosts - 1], host)) /* a node's slots come together */
		i = j->nhosts - 1;
	else if (grow_hosts(j) < 0)
		return -1;
	else if ((i = *(at = index_slot(j, host))) < 0) {
		i = *at = j->nhosts;
		memcpy(j->hosts[j->nhosts], host, strlen(host) + 1); /* valid_host: shorter than the slot */
		j->host_slots[j->nhosts++] = 0;
	}
	j->host_slots[i]++;
	j->slots++;
	return 0;
}

void lookup_torque_free(struct torque_job *j)
{
	free(j->hosts);
	free(j->host_slots);
	free(j->host_index);
	j->hosts = NULL;
	j->host_slots = j->host_index = NULL;
	j->nhosts = j->hosts_cap = j->index_cap = 0;
}

bool lookup_torque_valid_jobid(const char *text)
{
	const char *p = text;

	if (strlen(text) >= sizeof(((struct torque_job *)0)->id) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '[') {
		for (p++; isdigit((unsigned char)*p); p++)
			;
		if (*p++ != ']')
			return false;
	}
	return *p == '.' ? valid_host(p + 1) : *p == '\0';
}

int lookup_torque_parse_nodefile(FILE *f, const char *path, struct torque_job *j, char *err,
				size_t len)
{
	char line[1024];
	int lineno = 0;

	j->nhosts = j->slots = j->hosts_cap = j->index_cap = 0;
	j->hosts = NULL;
	j->host_slots = j->host_index = NULL;
	while (fgets(line, sizeof(line), f)) {
		char *host = strip(line);

		lineno++;
		if (!*host)
			continue;
		if (!valid_host(host)) {
			snprintf(err, len, "%s, line %d: '%.64s' is not a host name", path, lineno, host);
			return -1;
		}
		if (add_slot(j, host) < 0) {
			snprintf(err, len, "%s: more than %d distinct hosts, or no memory for them", path,
				 SCHED_TORQUE_HOSTS_MAX);
			return -1;
		}
	}
	if (j->slots == 0) {
		snprintf(err, len, "the node file %s lists no host", path);
		return -1;
	}
	return 0;
}

int lookup_torque_read_nodefile(const char *path, struct torque_job *j, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		j->nhosts = j->slots = j->hosts_cap = j->index_cap = 0;
		j->hosts = NULL;
		j->host_slots = j->host_index = NULL;
		snprintf(err, len, "cannot read the node file %s: %s", path, strerror(errno));
		return -1;
	}
	rc = lookup_torque_parse_nodefile(f, path, j, err, len);
	fclose(f);
	return rc;
}

int lookup_torque_from_env(struct torque_job *j, char *err, size_t len)
{
	const char *id = getenv("PBS_JOBID"), *nodefile = getenv("PBS_NODEFILE");
	const char *workdir = getenv("PBS_O_WORKDIR");

	memset(j, 0, sizeof(*j));
	if (!id || !*id)
		return 0;
	if (!lookup_torque_valid_jobid(id)) {
		snprintf(err, len, "PBS_JOBID='%.64s' is not a Torque job id", id);
		return -1;
	}
	if (!nodefile || !*nodefile) {
		snprintf(err, len, "PBS_JOBID is set but PBS_NODEFILE is not");
		return -1;
	}
	snprintf(j->id, sizeof(j->id), "%s", id);
	snprintf(j->nodefile, sizeof(j->nodefile), "%s", nodefile);
	snprintf(j->workdir, sizeof(j->workdir), "%s", workdir ? workdir : "");
	j->num_nodes = env_count("PBS_NUM_NODES");
	j->num_ppn = env_count("PBS_NUM_PPN");
	return lookup_torque_read_nodefile(nodefile, j, err, len) < 0 ? -1 : 1;
}

int lookup_torque_write_hostfile(const struct torque_job *j, const char *path, char *err,
				size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		snprintf(err, len, "cannot write the host file %s: %s", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < j->nhosts; i++)
		fprintf(f, "%s slots=1\n", j->hosts[i]);
	if (fclose(f) != 0) {
		snprintf(err, len, "cannot write the host file %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int lookup_torque_delete(const char *id, char *err, size_t len)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execlp("qdel", "qdel", id, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, len, "waitpid(qdel): %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		snprintf(err, len, "qdel %s: qdel was not found in PATH", id);
	else
		snprintf(err, len, "qdel %s failed (status %d)", id,
			 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return -1;
}

/* A whole number > 0 at *p, advancing *p past it; -1 when there is none. */
static int take_count(const char **p)
{
	char *end;
	long n;

	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	n = strtol(*p, &end, 10);
	if (errno || n <= 0 || n > 1000000)
		return -1;
	*p = end;
	return (int)n;
}

int lookup_torque_parse_nodes(const char *resource_list, int *nodes, int *ppn)
{
	const char *p = resource_list;

	/* Find "nodes=" at the start of one comma-separated item. */
	while (p && strncmp(p, "nodes=", 6)) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return 0;
	p += 6;
	if (!isdigit((unsigned char)*p)) {
		/* A host list ("nodes=n1:ppn=2+n2") or garbage: not a count of nodes. */
		return *p && *p != ',' && *p != ':' ? 0 : -1;
	}
	if ((*nodes = take_count(&p)) < 0)
		return -1;
	*ppn = 1;
	while (*p == ':') {
		p++;
		if (!strncmp(p, "ppn=", 4)) {
			p += 4;
			if ((*ppn = take_count(&p)) < 0)
				return -1;
		} else {
			/* A node property (":gpus=1", ":bigmem"): skip it. */
			while (*p && *p != ':' && *p != ',' && *p != '+')
				p++;
		}
	}
	if (*p == '+')
		return 0;
	return *p == '\0' || *p == ',' ? 1 : -1;
}
