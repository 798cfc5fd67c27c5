/* SPDX-License-Identifier: BSD-3-Clause */
/* Tests of the demangler (monitor/sample/addr/demangle.c): C++ names as LAMMPS's and a template
 * library's symbols read; Fortran module procedures of gfortran, Intel and LLVM Flang; C, MPI
 * and runtime names left alone; and hostile names: too long, a back-reference blow-up that
 * would take an in-process demangler gigabytes, a helper that stops answering — each left as
 * it is, with the next name still demangled. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../monitor/sample/addr/demangle.h"
#include "suites.h"

static void expect_name(const char *raw, const char *want)
{
	char out[256] = "unchanged";

	ck_assert_msg(demangle_name(raw, out, sizeof(out)), "%s: no name", raw);
	ck_assert_str_eq(out, want);
}

static void expect_left_alone(const char *raw)
{
	char out[256] = "unchanged";

	ck_assert_msg(!demangle_name(raw, out, sizeof(out)), "%s: read as '%s'", raw, out);
	ck_assert_str_eq(out, "unchanged");
}

START_TEST(cxx_names_read_as_written)
{
	expect_name("_ZN9LAMMPS_NS9CommBrick12forward_commEi", "LAMMPS_NS::CommBrick::forward_comm(int)");
	expect_name("_ZN9LAMMPS_NS6Verlet3runEi", "LAMMPS_NS::Verlet::run(int)");
	expect_name("_ZNSt6vectorIdSaIdEE9push_backERKd", "std::vector<double, std::allocator<double>>::push_back(double const&)");
	/* "> >" joined (a report's paths join frames with " > "), std::string as written */
	expect_name("_ZN9LAMMPS_NS5Error3allERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEiS8_",
		    "LAMMPS_NS::Error::all(std::string const&, int, std::string const&)");
	expect_name("_ZNSt6vectorIS_IS_IiSaIiEESaIS1_EESaIS3_EE5clearEv",
		    "std::vector<std::vector<std::vector<int, std::allocator<int>>, std::allocator<std::vector<int, std::allocator<int>>>>, "
		    "std::allocator<std::vector<std::vector<int, std::allocator<int>>, std::allocator<std::vector<int, std::allocator<int>>>>>>::clear()");
	expect_name("_ZN3fooIiEEvRKSs", "void foo<int>(std::string const&)");
	expect_name("_ZStrsIcSt11char_traitsIcEERSt13basic_istreamIT_T0_ES6_RS3_",
		    "std::basic_istream<char, std::char_traits<char>>& std::operator>><char, std::char_traits<char>>(std::basic_istream<char, std::char_traits<char>>&, char&)");
	expect_name("_ZZ4mainE5count", "main::count");
	/* asked twice: the second answer is the cache's, the same */
	expect_name("_ZN9LAMMPS_NS6Verlet3runEi", "LAMMPS_NS::Verlet::run(int)");
	demangle_stop();
}
END_TEST

START_TEST(fortran_module_procedures_read_as_mod_proc)
{
	expect_name("__heat_MOD_relax", "heat::relax");
	expect_name("__my_mod2_MOD_solve_all", "my_mod2::solve_all");
	expect_name("heat_mp_relax_", "heat::relax");
	expect_name("_QMheatPrelax", "heat::relax");
	expect_name("_QPrelax", "relax");
	expect_name("_QMheatFstepPinner", "heat::step::inner");
}
END_TEST

START_TEST(c_mpi_and_runtime_names_left_alone)
{
	const char *names[] = { "main", "MAIN__", "MPI_Send", "PMPI_Allreduce", "mpi_recv_", "ompi_coll_base_barrier",
				"__libc_start_call_main", "_start", "_gfortran_st_write", "__memset_avx2",
				"_Z", "_Zgarbage", "_QXnope", "_QMheat", "__MOD_x", "x_mp_", "Heat_mp_relax_",
				"_ZN3fooE\x01", "" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		expect_left_alone(names[i]);
	demangle_stop();
}
END_TEST

/* "f(A<B, B>, A<A<B, B>, A<B, B> >, …)": each parameter twice the one before, by reference. */
static void blowup_name(char *buf, size_t len, int depth)
{
	static const char ids[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t o = (size_t)snprintf(buf, len, "_Z1f1AI1BS0_E");

	for (int k = 1; k <= depth && o + 12 < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "S_IS%c_S%c_E", ids[k], ids[k]);
}

START_TEST(hostile_names_are_left_as_they_are)
{
	char name[DEMANGLE_MAX_IN + 64];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name, "_ZN", 3);
	expect_left_alone(name);
	/* 33 levels: 2^33 copies of the first type — more than the helper's time or memory */
	demangle_set_deadline_ms(2000);
	blowup_name(name, sizeof(name), 33);
	ck_assert_uint_lt(strlen(name), 400);
	expect_left_alone(name);
	/* asked again: not tried again */
	int failures = demangle_failures();

	expect_left_alone(name);
	ck_assert_int_eq(demangle_failures(), failures);
	expect_name("_ZN9LAMMPS_NS6Verlet3runEi", "LAMMPS_NS::Verlet::run(int)");
	demangle_stop();
}
END_TEST

START_TEST(a_long_name_is_cut_not_dropped)
{
	char out[24];

	ck_assert(demangle_name("_ZN9LAMMPS_NS9CommBrick12forward_commEi", out, sizeof(out)));
	ck_assert_str_eq(out, "LAMMPS_NS::CommBrick...");
	demangle_stop();
}
END_TEST

/* A helper that stops answering (frozen here by its PID, our own child): the name waits no longer
 * than the deadline, the helper is ended, and the next name gets a new one. */
START_TEST(a_helper_that_stops_answering_is_replaced)
{
	expect_name("_ZN9LAMMPS_NS6Verlet3runEi", "LAMMPS_NS::Verlet::run(int)");
	pid_t helper = demangle_helper_pid();

	ck_assert_int_gt(helper, 0);
	int failures = demangle_failures(); /* the runner may not fork per test (CK_FORK=no) */

	ck_assert_int_eq(kill(helper, SIGSTOP), 0);
	demangle_set_deadline_ms(300);
	expect_left_alone("_ZN9LAMMPS_NS9CommBrick12forward_commEi");
	ck_assert_int_eq(demangle_failures(), failures + 1);
	ck_assert_int_eq(kill(helper, 0), -1); /* ended and collected */
	expect_name("_ZN4Halo4Comm12forward_commEi", "Halo::Comm::forward_comm(int)");
	ck_assert_int_ne(demangle_helper_pid(), helper);
	demangle_stop();
}
END_TEST

Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("names");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, cxx_names_read_as_written);
	tcase_add_test(tc, fortran_module_procedures_read_as_mod_proc);
	tcase_add_test(tc, c_mpi_and_runtime_names_left_alone);
	tcase_add_test(tc, hostile_names_are_left_as_they_are);
	tcase_add_test(tc, a_long_name_is_cut_not_dropped);
	tcase_add_test(tc, a_helper_that_stops_answering_is_replaced);
	suite_add_tcase(s, tc);
	return s;
}
