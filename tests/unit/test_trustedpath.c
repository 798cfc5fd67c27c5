/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the trusted-path rule for the site's files (monitor/sample/safe/trustedpath.c): root
 * writes as root only where root alone can change every component of the path — root-owned,
 * writable by no one else, none a symbolic link. The directories are
 * made under /var/lib (root's, 0755), as an administrator's /var/log/parastack would be; as
 * another user only the rule's "no" answers can be checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../monitor/sample/safe/trustedpath.h"
#include "suites.h"

static char base[64];

static void make_base(void)
{
	strcpy(base, "/var/lib/parastack-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert_int_eq(chmod(base, 0755), 0);
}

static void remove_base(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(a_root_only_path_is_trusted_with_its_group)
{
	char dir[128];
	gid_t group = 12345;

	if (geteuid() != 0)
		return; /* needs root to own the directory (CI runs as root) */
	make_base();
	snprintf(dir, sizeof(dir), "%s/reports", base);
	ck_assert_int_eq(mkdir(dir, 0750), 0);
	ck_assert_int_eq(chown(dir, 0, 4), 0);
	ck_assert(trustedpath_root_only(dir, &group));
	ck_assert_int_eq(group, 4);
	ck_assert(trustedpath_root_only("/", &group));
	remove_base();
}
END_TEST

START_TEST(writable_by_others_or_owned_by_a_user_is_not)
{
	char dir[128], sub[160];
	gid_t group;

	if (geteuid() != 0)
		return;
	make_base();
	snprintf(dir, sizeof(dir), "%s/reports", base);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/inner", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert(trustedpath_root_only(sub, &group));
	ck_assert_int_eq(chmod(dir, 0775), 0); /* group-writable, one level up */
	ck_assert(!trustedpath_root_only(sub, &group));
	ck_assert_int_eq(chmod(dir, 0757), 0); /* world-writable */
	ck_assert(!trustedpath_root_only(sub, &group));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chown(dir, 65534, 65534), 0); /* a user's */
	ck_assert(!trustedpath_root_only(sub, &group));
	ck_assert(!trustedpath_root_only("/tmp", &group)); /* sticky, but writable by everyone */
	remove_base();
}
END_TEST

START_TEST(a_link_anywhere_on_the_path_is_not)
{
	char dir[128], link[128], through[160];
	gid_t group;

	if (geteuid() != 0)
		return;
	make_base();
	snprintf(dir, sizeof(dir), "%s/real", base);
	snprintf(link, sizeof(link), "%s/link", base);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(symlink(dir, link), 0); /* root's own link: still not followed */
	ck_assert(trustedpath_root_only(dir, &group));
	ck_assert(!trustedpath_root_only(link, &group));
	snprintf(through, sizeof(through), "%s/link/.", base);
	ck_assert(!trustedpath_root_only(through, &group));
	snprintf(through, sizeof(through), "%s/real/..", base);
	ck_assert(!trustedpath_root_only(through, &group));
	remove_base();
}
END_TEST

START_TEST(relative_missing_or_not_a_directory_is_not)
{
	gid_t group;

	ck_assert(!trustedpath_root_only("var/lib", &group));
	ck_assert(!trustedpath_root_only("/nonexistent-parastack/x", &group));
	ck_assert(!trustedpath_root_only("/etc/passwd", &group));
}
END_TEST

Suite *trustedpath_suite(void)
{
	Suite *s = suite_create("trustedpath");
	TCase *tc = tcase_create("root_trusted");

	tcase_add_test(tc, a_root_only_path_is_trusted_with_its_group);
	tcase_add_test(tc, writable_by_others_or_owned_by_a_user_is_not);
	tcase_add_test(tc, a_link_anywhere_on_the_path_is_not);
	tcase_add_test(tc, relative_missing_or_not_a_directory_is_not);
	suite_add_tcase(s, tc);
	return s;
}
