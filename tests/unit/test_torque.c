/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of sched/torque on files and variables as Torque writes them: job ids, node files
 * (one line per slot, hosts in order, blank lines, bad lines), the environment of a job, the
 * host file with each node once, and `-l nodes=N:ppn=P`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sched/lookup/lookup_torque.h"
#include "suites.h"

static char dir[] = "/tmp/parastack-unit-torque.XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/parastack-unit-torque.XXXXXX")));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text to DIR/name; the path. */
static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(job_ids)
{
	ck_assert(lookup_torque_valid_jobid("1234"));
	ck_assert(lookup_torque_valid_jobid("1234.server"));
	ck_assert(lookup_torque_valid_jobid("1234.head-1.cluster.example"));
	ck_assert(lookup_torque_valid_jobid("1234[7].server"));
	ck_assert(lookup_torque_valid_jobid("1234[].server"));
	ck_assert(!lookup_torque_valid_jobid(""));
	ck_assert(!lookup_torque_valid_jobid("server.1234"));
	ck_assert(!lookup_torque_valid_jobid("12 34"));
	ck_assert(!lookup_torque_valid_jobid("1234."));
	ck_assert(!lookup_torque_valid_jobid("1234[7"));
	ck_assert(!lookup_torque_valid_jobid("1234;rm -rf"));
}
END_TEST

START_TEST(nodefile_one_line_per_slot)
{
	struct torque_job j;
	char err[256];
	const char *path = write_file("nodes", "n1\nn1\n  n2 \n\nn2\nn3\nn1\n");

	ck_assert_int_eq(lookup_torque_read_nodefile(path, &j, err, sizeof(err)), 0);
	ck_assert_int_eq(j.slots, 6);
	ck_assert_int_eq(j.nhosts, 3);
	ck_assert_str_eq(j.hosts[0], "n1");
	ck_assert_str_eq(j.hosts[1], "n2");
	ck_assert_str_eq(j.hosts[2], "n3");
	ck_assert_int_eq(j.host_slots[0], 3);
	ck_assert_int_eq(j.host_slots[1], 2);
	ck_assert_int_eq(j.host_slots[2], 1);
	lookup_torque_free(&j);
}
END_TEST

/* Issue 39: a job of more hosts than the 256 it once took, its node file round-robin (no
 * node's slots together): each host once, in order, with its slots. */
START_TEST(nodefile_of_thousands_of_hosts)
{
	struct torque_job j;
	char err[256], *text = malloc(5000 * 3 * 16), *o = text;

	for (int round = 0; round < 3; round++)
		for (int h = 0; h < 5000; h++)
			o += sprintf(o, "node%04d\n", h);
	ck_assert_int_eq(lookup_torque_read_nodefile(write_file("many", text), &j, err, sizeof(err)), 0);
	ck_assert_int_eq(j.nhosts, 5000);
	ck_assert_int_eq(j.slots, 15000);
	ck_assert_str_eq(j.hosts[0], "node0000");
	ck_assert_str_eq(j.hosts[4999], "node4999");
	for (int h = 0; h < 5000; h++)
		ck_assert_int_eq(j.host_slots[h], 3);
	lookup_torque_free(&j);
	free(text);
}
END_TEST

START_TEST(nodefile_errors_name_the_line)
{
	struct torque_job j;
	char err[256];

	ck_assert_int_eq(lookup_torque_read_nodefile(write_file("bad", "n1\nn1 n2\n"), &j, err,
						    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "line 2"));
	lookup_torque_free(&j);
	ck_assert_int_eq(lookup_torque_read_nodefile(write_file("empty", "\n\n"), &j, err,
						    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "lists no host"));
	lookup_torque_free(&j);
	ck_assert_int_eq(lookup_torque_read_nodefile("/nonexistent/nodes", &j, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cannot read the node file /nonexistent/nodes"));
	lookup_torque_free(&j);
}
END_TEST

START_TEST(environment_of_a_job)
{
	struct torque_job j;
	char err[256];
	const char *path = write_file("nodes", "a\na\nb\nb\n");

	unsetenv("PBS_JOBID");
	ck_assert_int_eq(lookup_torque_from_env(&j, err, sizeof(err)), 0);
	setenv("PBS_JOBID", "77.head", 1);
	unsetenv("PBS_NODEFILE");
	ck_assert_int_eq(lookup_torque_from_env(&j, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "PBS_NODEFILE"));
	setenv("PBS_NODEFILE", path, 1);
	setenv("PBS_NUM_NODES", "2", 1);
	setenv("PBS_NUM_PPN", "2", 1);
	setenv("PBS_O_WORKDIR", "/home/u/run", 1);
	ck_assert_int_eq(lookup_torque_from_env(&j, err, sizeof(err)), 1);
	ck_assert_str_eq(j.id, "77.head");
	ck_assert_str_eq(j.workdir, "/home/u/run");
	ck_assert_int_eq(j.num_nodes, 2);
	ck_assert_int_eq(j.num_ppn, 2);
	ck_assert_int_eq(j.nhosts, 2);
	ck_assert_int_eq(j.slots, 4);
	lookup_torque_free(&j);
	setenv("PBS_JOBID", "77;reboot", 1);
	ck_assert_int_eq(lookup_torque_from_env(&j, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a Torque job id"));
	unsetenv("PBS_JOBID");
	unsetenv("PBS_NODEFILE");
	unsetenv("PBS_NUM_NODES");
	unsetenv("PBS_NUM_PPN");
	unsetenv("PBS_O_WORKDIR");
}
END_TEST

START_TEST(hostfile_has_each_node_once)
{
	struct torque_job j;
	char err[256], path[256], buf[256] = "";

	ck_assert_int_eq(lookup_torque_read_nodefile(write_file("nodes", "x\ny\nx\ny\nz\n"), &j, err,
						    sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/hosts", dir);
	ck_assert_int_eq(lookup_torque_write_hostfile(&j, path, err, sizeof(err)), 0);

	FILE *f = fopen(path, "r");
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);

	fclose(f);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "x slots=1\ny slots=1\nz slots=1\n");
	lookup_torque_free(&j);
	ck_assert_int_eq(lookup_torque_write_hostfile(&j, "/nonexistent/hosts", err, sizeof(err)), -1);
}
END_TEST

START_TEST(resource_list_nodes)
{
	int nodes = 0, ppn = 0;

	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=4:ppn=2", &nodes, &ppn), 1);
	ck_assert_int_eq(nodes, 4);
	ck_assert_int_eq(ppn, 2);
	ck_assert_int_eq(lookup_torque_parse_nodes("walltime=1:00:00,nodes=3,mem=2gb", &nodes, &ppn), 1);
	ck_assert_int_eq(nodes, 3);
	ck_assert_int_eq(ppn, 1);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=2:gpus=1:ppn=8", &nodes, &ppn), 1);
	ck_assert_int_eq(ppn, 8);
	ck_assert_int_eq(lookup_torque_parse_nodes("walltime=10:00", &nodes, &ppn), 0);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=n1:ppn=2+n2:ppn=2", &nodes, &ppn), 0);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=2:ppn=2+1:ppn=4", &nodes, &ppn), 0);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=0", &nodes, &ppn), -1);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=4:ppn=", &nodes, &ppn), -1);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=4:ppn=x", &nodes, &ppn), -1);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=", &nodes, &ppn), -1);
	ck_assert_int_eq(lookup_torque_parse_nodes("nodes=4x", &nodes, &ppn), -1);
}
END_TEST

Suite *torque_suite(void)
{
	Suite *s = suite_create("torque");
	TCase *tc = tcase_create("torque");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, job_ids);
	tcase_add_test(tc, nodefile_one_line_per_slot);
	tcase_add_test(tc, nodefile_of_thousands_of_hosts);
	tcase_add_test(tc, nodefile_errors_name_the_line);
	tcase_add_test(tc, environment_of_a_job);
	tcase_add_test(tc, hostfile_has_each_node_once);
	tcase_add_test(tc, resource_list_nodes);
	suite_add_tcase(s, tc);
	return s;
}
