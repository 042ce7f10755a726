// samples/cxx_throw.cc: exceptions thrown through probed C++ functions and
// caught at several depths, for return probes at the functions' exits
// (issue 19): an exception leaves a call without a return, which ptap must
// neither record nor trip over.
//
// usage: cxx_throw [N]   (default 3)
// For i = 0..N-1, main calls cxx_catcher(i), which calls cxx_middle(i),
// which calls thrower(i) (mangled _Z7throweri).  thrower throws
// std::runtime_error when i % 3 == 1, else returns i*2; cxx_middle returns
// that + 1; cxx_catcher returns that + 100, or catches the exception: for
// an even i it returns -1, for an odd i it rethrows, caught in main.  With
// fd 3 open, states each return in the order they happen, as ptap records
// them with `_Z7throweri%return $retval i`, `cxx_middle%return $retval i`
// and `cxx_catcher%return $retval i` (normalized: "EVENT: retval=R i=I").
// Prints "cxx_throw: caught C in cxx_catcher, D in main, returned R" and
// exits 0 when C, D and R are right.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define PROBED __attribute__((noinline, noclone, noipa))

static FILE *ex;	// fd 3, or NULL

PROBED int thrower(int i)
{
	if (i % 3 == 1)
		throw std::runtime_error("i % 3 == 1");
	if (ex)
		std::fprintf(ex, "_Z7throweri__return: retval=%d i=%d\n", i * 2, i);
	return i * 2;
}

// Unmangled names for the probes, in a C++ translation unit all the same.
extern "C" PROBED int cxx_middle(int i)
{
	int r = thrower(i);

	asm volatile("" : "+r"(r) : : "memory");
	if (ex)
		std::fprintf(ex, "cxx_middle__return: retval=%d i=%d\n", r + 1, i);
	return r + 1;
}

static int caught_here;

extern "C" PROBED int cxx_catcher(int i)
{
	int r;

	try {
		r = cxx_middle(i) + 100;
	} catch (const std::runtime_error &) {
		caught_here++;
		if (i & 1)
			throw;
		r = -1;
	}
	if (ex)
		std::fprintf(ex, "cxx_catcher__return: retval=%d i=%d\n", r, i);
	return r;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 3, caught = 0, sum = 0;
	int want_here = 0, want_main = 0, want_sum = 0;

	ex = fdopen(3, "w");
	if (ex)
		setvbuf(ex, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		if (i % 3 != 1)
			want_sum += i * 2 + 1 + 100;
		else if (i & 1)
			want_here++, want_main++;
		else
			want_here++, want_sum -= 1;
		try {
			sum += cxx_catcher(i);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	std::printf("cxx_throw: caught %d in cxx_catcher, %d in main, returned %d\n", caught_here,
		    caught, sum);
	return caught_here == want_here && caught == want_main && sum == want_sum ? 0 : 1;
}
