// samples/cxx_throw.cc: an exception thrown through a function, for the
// refusal of return probes on C++ functions (issue 5): an exception that
// unwinds through a probed frame would meet ptap's return-address
// trampoline, which has no unwind information, so ptap refuses
// `cxx_middle%return` and `_Z7throweri%return` (an entry probe is fine).
//
// usage: cxx_throw [N]   (default 3)
// For i = 0..N-1, main calls cxx_middle(i), which calls thrower(i); thrower
// throws std::runtime_error for odd i (caught in main, through cxx_middle's
// frame) and returns i*2 for even i (cxx_middle adds 1).  Prints
// "cxx_throw: caught C, returned R" and exits 0 when C and R are right.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define PROBED __attribute__((noinline, noclone, noipa))

// Mangled: _Z7throweri.
PROBED int thrower(int i)
{
	if (i & 1)
		throw std::runtime_error("odd");
	return i * 2;
}

// An unmangled name for the probe, in a C++ translation unit all the same.
extern "C" PROBED int cxx_middle(int i)
{
	int r = thrower(i);

	asm volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 3, caught = 0, sum = 0, want_caught = 0;
	int want_sum = 0;

	for (int i = 0; i < n; i++) {
		if (i & 1)
			want_caught++;
		else
			want_sum += i * 2 + 1;
		try {
			sum += cxx_middle(i);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	std::printf("cxx_throw: caught %d, returned %d\n", caught, sum);
	return caught == want_caught && sum == want_sum ? 0 : 1;
}
