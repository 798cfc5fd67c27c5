// halo_cxx — a C++ MPI code laid out as LAMMPS is: classes in a namespace, a halo exchange per
// step that posts an MPI_Irecv from the left and then sends to the right with a blocking
// MPI_Send of PS_BYTES (default 29,808, what LAMMPS's CommBrick::forward_comm sent in the field
// trial: above Open MPI's eager limit on one node), and a force loop. Its frames are C++ names
// to read, and a stripped copy's (tests/cli/test-stack.sh, test-culprits.sh). Faults as in
// faults.h (PS_FAULT=spin spins in Pair::compute); communication faults come from outside, as
// in the field (tests/fixtures/psinject.c: a receive's or a send's tag changed).
// Built whole (halo_cxx), and as LAMMPS is packaged (halo_cxx-stripped): a stripped program
// (-DSIM_MAIN_ONLY) whose main calls sim_main in libsimcxx.so (-DSIM_LIBRARY), which keeps
// only the dynamic symbols.
int sim_main(int argc, char **argv);

#ifndef SIM_MAIN_ONLY
#include <vector>

#include "faults.h"

namespace Sim {

class Comm {
public:
	Comm(int rank, int size, size_t bytes)
	    : rank_(rank), left_((rank + size - 1) % size), right_((rank + 1) % size), out_(bytes, 1), in_(bytes)
	{
	}
	__attribute__((noinline)) void forward_comm(int step)
	{
		MPI_Request req;

		out_[0] = (char)step;
		MPI_Irecv(in_.data(), (int)in_.size(), MPI_CHAR, left_, 7, MPI_COMM_WORLD, &req);
		MPI_Send(out_.data(), (int)out_.size(), MPI_CHAR, right_, 7, MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	int rank() const { return rank_; }

private:
	int rank_, left_, right_;
	std::vector<char> out_, in_;
};

class Pair {
public:
	double compute(int step, bool spin);
};

// Out of the class, as LAMMPS defines its methods: one global symbol, never a local clone.
__attribute__((noinline)) double Pair::compute(int step, bool spin)
{
	volatile double e = 0;

	for (int i = 0; i < 20000; i++)
		e = e + (double)((i * step) % 7) * 1e-3;
	if (spin)
		faulty_spin();
	return e;
}

class Verlet {
public:
	Verlet(Comm &comm, Pair &pair) : comm_(comm), pair_(pair) {}
	__attribute__((noinline)) void run(struct faults *f)
	{
		double energy = 0, sum = 0;

		for (long step = 0; app_more(f, step); step++) {
			bool spin = faults_due(f, comm_.rank()) == FAULT_SPIN;

			energy += pair_.compute((int)step, spin);
			comm_.forward_comm((int)step);
			if (step % 50 == 0)
				MPI_Allreduce(&energy, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	}

private:
	Comm &comm_;
	Pair &pair_;
};

} // namespace Sim

int sim_main(int argc, char **argv)
{
	int rank, size;
	struct faults f;

	app_start(&argc, &argv, &rank, &size, &f);

	Sim::Comm comm(rank, size, (size_t)env_double("PS_BYTES", 29808));
	Sim::Pair pair;
	Sim::Verlet verlet(comm, pair);

	verlet.run(&f);
	app_end(&f, rank);
	return 0;
}

#endif

#ifndef SIM_LIBRARY
#include <cstdio>

// Work after the call, as LAMMPS's main has (its destructor, MPI_Finalize): no tail call, so
// main keeps a frame of its own.
int main(int argc, char **argv)
{
	int rc = sim_main(argc, argv);

	fflush(stdout);
	return rc;
}
#endif
// SPDX-License-Identifier: BSD-3-Clause
