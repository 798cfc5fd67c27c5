/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the launcher shims' directory (base/layershims.c), which `parastack run` of a
 * job script and the SPANK plugin's batch step both make: every shim a link to the program, the
 * directory private; removal takes what shims copied into it too, follows no link, and leaves
 * a directory someone else owns alone; and which programs get the MPICH build of the layer. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../base/layershims.h"
#include "suites.h"

START_TEST(every_shim_links_to_the_program_in_a_private_directory)
{
	char dir[64], link[128], target[PATH_MAX];
	struct stat st;
	int n = 0;

	ck_assert_int_eq(layershims_make("/usr/bin/parastack-test", dir, sizeof(dir)), 0);
	ck_assert_int_eq(strncmp(dir, "/tmp/parastack-launch.", 22), 0);
	ck_assert_int_eq(lstat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	for (int i = 0; layershims_names[i]; i++, n++) {
		snprintf(link, sizeof(link), "%s/%s", dir, layershims_names[i]);
		ssize_t len = readlink(link, target, sizeof(target) - 1);

		ck_assert_int_gt(len, 0);
		target[len] = '\0';
		ck_assert_str_eq(target, "/usr/bin/parastack-test");
	}
	ck_assert_int_ge(n, 7); /* Open MPI's three names, srun, hydra's three */
	layershims_remove(dir, (uid_t)-1);
	ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

START_TEST(removal_takes_copies_but_never_follows_a_link)
{
	char dir[64], outside[] = "/tmp/parastack-unit-outside.XXXXXX", path[192];
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(outside));
	snprintf(path, sizeof(path), "%s/keep", outside);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(layershims_make("/bin/true", dir, sizeof(dir)), 0);
	/* An appfile copy a shim left, and a link to a directory elsewhere. */
	snprintf(path, sizeof(path), "%s/appfile.1", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/elsewhere", dir);
	ck_assert_int_eq(symlink(outside, path), 0);
	layershims_remove(dir, (uid_t)-1);
	ck_assert_int_eq(access(dir, F_OK), -1);
	snprintf(path, sizeof(path), "%s/keep", outside);
	ck_assert_int_eq(access(path, F_OK), 0);
	unlink(path);
	rmdir(outside);
}
END_TEST

START_TEST(a_directory_of_another_owner_is_left)
{
	char dir[64], link[128];

	ck_assert_int_eq(layershims_make("/bin/true", dir, sizeof(dir)), 0);
	layershims_remove(dir, getuid() + 1);
	ck_assert_int_eq(access(dir, F_OK), 0);
	/* A link put in the directory's place is not followed either. */
	snprintf(link, sizeof(link), "%s.link", dir);
	ck_assert_int_eq(symlink(dir, link), 0);
	layershims_remove(link, (uid_t)-1);
	ck_assert_int_eq(access(dir, F_OK), 0);
	unlink(link);
	layershims_remove(dir, getuid());
	ck_assert_int_eq(access(dir, F_OK), -1);
}
END_TEST

START_TEST(only_an_elf_naming_libmpich_needs_mpich)
{
	char path[] = "/tmp/parastack-unit-elf.XXXXXX";
	static const char elf[] = "\177ELF\2\1\1\0....libmpich.so.12\0libc.so.6";
	static const char text[] = "#!/bin/sh\n# libmpich.so.12\n";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, elf, sizeof(elf)), (ssize_t)sizeof(elf));
	close(fd);
	ck_assert(layershims_needs_mpich(path));
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	close(fd);
	ck_assert(!layershims_needs_mpich(path)); /* a script that mentions it is no MPICH program */
	unlink(path);
	ck_assert(!layershims_needs_mpich(path));
	ck_assert(!layershims_needs_mpich("/dev/zero")); /* never a device, never a block */
}
END_TEST

Suite *layershims_suite(void)
{
	Suite *s = suite_create("layershims");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, every_shim_links_to_the_program_in_a_private_directory);
	tcase_add_test(tc, removal_takes_copies_but_never_follows_a_link);
	tcase_add_test(tc, a_directory_of_another_owner_is_left);
	tcase_add_test(tc, only_an_elf_naming_libmpich_needs_mpich);
	suite_add_tcase(s, tc);
	return s;
}
