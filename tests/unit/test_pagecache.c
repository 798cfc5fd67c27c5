/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of what the monitor holds once for all its ranks: the pages of their unwind tables
 * (monitor/sample/stop/pagecache.c) and the entries of their files (monitor/sample/addr/
 * modreg.c). Ranks of one executable share its pages and its entries, also at other load
 * addresses (real processes, unwound through ptrace); a rank whose file under the same path is
 * another file gets its own; the page cache never holds more than its bound and counts what it
 * evicts; an entry goes with the last rank that holds it. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../monitor/sample/addr/maps.h"
#include "../../monitor/sample/stop/pagecache.h"
#include "../../monitor/sample/stop/target.h"
#include "suites.h"

#define SLEEP_BIN "/usr/bin/sleep"

static int fills;

static bool fill_with(void *ctx, void *buf)
{
	fills++;
	memset(buf, *(int *)ctx, PAGECACHE_PAGE);
	return true;
}

static bool fill_fails(void *ctx, void *buf)
{
	(void)ctx, (void)buf;
	return false;
}

START_TEST(one_file_page_is_held_once)
{
	struct pagecache_key k = { 8, 1234, 3 * PAGECACHE_PAGE }, other = { 8, 1235, 3 * PAGECACHE_PAGE };
	int a = 'a', b = 'b';
	struct pagecache_stats st;

	pagecache_clear();
	fills = 0;
	ck_assert_int_eq(pagecache_get(&k, fill_with, &a)[0], 'a');
	/* Another rank (its memory says 'b') asks for the same page of the same file: held. */
	ck_assert_int_eq(pagecache_get(&k, fill_with, &b)[0], 'a');
	ck_assert_int_eq(fills, 1);
	/* The same path and offset in another file (another inode): its own page. */
	ck_assert_int_eq(pagecache_get(&other, fill_with, &b)[0], 'b');
	ck_assert_int_eq(fills, 2);
	/* A page that cannot be read is not held. */
	other.off += PAGECACHE_PAGE;
	ck_assert_ptr_null(pagecache_get(&other, fill_fails, NULL));
	pagecache_stats(&st);
	ck_assert_int_eq(st.pages, 2);
	ck_assert_int_eq(st.hits, 1);
	ck_assert_int_eq(st.misses, 3);
	pagecache_clear();
}
END_TEST

START_TEST(the_cache_is_bounded)
{
	struct pagecache_stats st;
	int v = 'x';

	pagecache_clear();
	for (int i = 0; i < 3 * PAGECACHE_PAGES; i++) {
		struct pagecache_key k = { 1, 77, (uint64_t)i * PAGECACHE_PAGE };

		ck_assert_ptr_nonnull(pagecache_get(&k, fill_with, &v));
	}
	pagecache_stats(&st);
	ck_assert_int_eq(st.pages, PAGECACHE_PAGES);
	ck_assert_int_eq(st.evictions, 2 * PAGECACHE_PAGES);
	/* The most recent page is still there. */
	struct pagecache_key last = { 1, 77, (uint64_t)(3 * PAGECACHE_PAGES - 1) * PAGECACHE_PAGE };

	fills = 0;
	pagecache_get(&last, fill_with, &v);
	ck_assert_int_eq(fills, 0);
	pagecache_clear();
}
END_TEST

/* A program run as a rank would be: exec'd (its own load addresses), waiting in the kernel. */
static pid_t start_sleeper(const char *path)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(path, path, "60", (char *)NULL);
		_exit(127);
	}
	/* Until it runs the program (not this test's copy of itself), with a deadline. */
	for (int i = 0; i < 500; i++) {
		char exe[4096] = "", link[64];

		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		if (readlink(link, exe, sizeof(exe) - 1) > 0 && !strcmp(exe, path))
			break;
		nanosleep(&(struct timespec){ 0, 10000000L }, NULL);
	}
	nanosleep(&(struct timespec){ 0, 100000000L }, NULL); /* into its sleep */
	return pid;
}

static void stop_sleeper(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Unwind every thread of pid once; the cache's numbers after it. */
static struct pagecache_stats unwind_once(pid_t pid)
{
	struct target t;
	struct thread_stack *th = NULL;
	int n = 0;
	enum rank_state state;
	char err[512];
	struct pagecache_stats st;

	memset(&t, 0, sizeof(t));
	ck_assert_msg(target_open(&t, pid, err, sizeof(err)) == TARGET_OK, "%s", err);
	ck_assert_msg(target_capture(&t, &th, &n, &state, err, sizeof(err)) == TARGET_OK, "%s", err);
	ck_assert_int_ge(n, 1);
	ck_assert_int_ge(th[0].nframes, 2);
	free(th);
	target_close(&t);
	pagecache_stats(&st);
	return st;
}

/* Copy a file into path through a new inode (written beside it, renamed over it). */
static void copy_file(const char *from, const char *path)
{
	char tmp[4200], buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t r;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ck_assert(in >= 0 && out >= 0);
	while ((r = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)r), r);
	close(out);
	close(in);
	ck_assert_int_eq(rename(tmp, path), 0);
}

START_TEST(ranks_of_one_executable_share_its_unwind_pages)
{
	char dir[] = "/tmp/parastack-pagecache.XXXXXX", path[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rank", dir);
	copy_file(SLEEP_BIN, path);
	pagecache_clear();

	pid_t a = start_sleeper(path), b = start_sleeper(path);
	struct pagecache_stats s1 = unwind_once(a), s2 = unwind_once(b);

	/* The second rank, loaded elsewhere, found every unwind page the first one read. */
	ck_assert_int_gt(s1.misses, 0);
	ck_assert_int_eq(s2.misses, s1.misses);
	ck_assert_int_gt(s2.hits, s1.hits);
	ck_assert_int_eq(s2.pages, s1.pages);

	/* The program rebuilt under the same path (another inode): its pages are its own. */
	copy_file(SLEEP_BIN, path);

	pid_t c = start_sleeper(path);
	struct pagecache_stats s3 = unwind_once(c);

	ck_assert_int_gt(s3.misses, s2.misses);
	ck_assert_int_gt(s3.pages, s2.pages);
	stop_sleeper(c);
	stop_sleeper(b);
	stop_sleeper(a);
	unlink(path);
	rmdir(dir);
	pagecache_clear();
}
END_TEST

/* The entry of path in pid's map (loaded into mp). */
static const struct module *module_of(struct maps *mp, pid_t pid, const char *path)
{
	ck_assert_int_eq(maps_load(pid, mp), 0);
	for (int i = 0; i < mp->npaths; i++)
		if (!strcmp(maps_path_at(mp, i), path))
			return mp->mods[i];
	ck_abort_msg("%s is not in the map of %d", path, (int)pid);
	return NULL;
}

START_TEST(ranks_of_one_executable_share_its_module_entries)
{
	char dir[] = "/tmp/parastack-modreg.XXXXXX", path[256];
	struct maps ma, mb, mc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rank", dir);
	copy_file(SLEEP_BIN, path);

	long before = modreg_count();
	pid_t a = start_sleeper(path), b = start_sleeper(path);
	const struct module *ea = module_of(&ma, a, path);
	long after_a = modreg_count();
	const struct module *eb = module_of(&mb, b, path);

	/* The second rank adds no entry: its executable, its libc and its loader are the first's. */
	ck_assert_ptr_eq(ea, eb);
	ck_assert_int_eq(ea->refs, 2);
	ck_assert_int_eq(modreg_count(), after_a);
	ck_assert_int_gt(after_a, before);

	/* The program rebuilt under the same path (another inode): an entry of its own, the rest
	 * still shared. */
	copy_file(SLEEP_BIN, path);

	pid_t c = start_sleeper(path);
	const struct module *ec = module_of(&mc, c, path);

	ck_assert_ptr_ne(ec, ea);
	ck_assert_int_eq(modreg_count(), after_a + 1);
	maps_free(&mc);
	maps_free(&mb);
	ck_assert_int_eq(ea->refs, 1);
	maps_free(&ma);
	ck_assert_int_eq(modreg_count(), before);
	stop_sleeper(c);
	stop_sleeper(b);
	stop_sleeper(a);
	unlink(path);
	rmdir(dir);
}
END_TEST

Suite *pagecache_suite(void)
{
	Suite *s = suite_create("pagecache");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, one_file_page_is_held_once);
	tcase_add_test(tc, the_cache_is_bounded);
	tcase_add_test(tc, ranks_of_one_executable_share_its_unwind_pages);
	tcase_add_test(tc, ranks_of_one_executable_share_its_module_entries);
	suite_add_tcase(s, tc);
	return s;
}
