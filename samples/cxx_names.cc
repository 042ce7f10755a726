// samples/cxx_names.cc: C++ functions named as C++ names them (issue 21):
// methods of a class in a namespace, two overloads, a template's two
// instances, a lambda, a destructor.  ptap finds each by the name a user
// types (ns::Db::query, ns::Db::query(int), ns::twice<int>), lists them so,
// and names their events as identifiers (ns_Db_query).
//
// usage: cxx_names [N]   (default N: 3)
// Calls, for i = 0..N-1: d.query(sql, i) with sql = "select" (the string
// overload: returns 6 + i), d.query(i) (i * 2), ns::twice<int>(i) (i * 2),
// ns::twice<double>(i + 0.5), a lambda (i + 1), and d.note(key, full)
// with a std::string_view key = "sel" (of sql's bytes: no NUL after it)
// and a std::string full = "select-I" by value, and d.sum(v) with a
// std::vector<int> v = {I, 7}, and ns::V's operator+ and operator- (V{I}
// and V{1}), d.id() on d and on it as const (2 and 1), and ns::pick(d) of a
// Derived whose x (2) hides its Base's x (1), and its Base's y (5).  Prints
// "cxx_names: N rounds, sum S" and exits 0 when S is right.  With fd 3
// open, states each call of query(int) and twice<int> as ptap records them
// with `ns::Db::query(int) id` and `ns::twice<int> x`: "ns_Db_query_int:
// id=I", "ns_twice_int: x=I".
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <vector>

namespace ns {

struct Db {
	int query(const std::string &sql, int n);
	int query(int id);
	void note(std::string_view key, std::string full);
	void sum(const std::vector<int> &v);
	int id() const;
	int id();
	~Db();
	long calls = 0;
};

__attribute__((noinline)) int Db::query(const std::string &sql, int n)
{
	calls++;
	return (int)sql.size() + n;
}

__attribute__((noinline)) int Db::query(int id)
{
	calls++;
	return id * 2;
}

__attribute__((noinline)) void Db::note(std::string_view key, std::string full)
{
	calls += (long)(key.size() + full.size());
}

__attribute__((noinline)) void Db::sum(const std::vector<int> &v)
{
	for (int x : v)
		calls += x;
}

__attribute__((noinline)) int Db::id() const
{
	return 1;
}

__attribute__((noinline)) int Db::id()
{
	return 2;
}

__attribute__((noinline)) Db::~Db()
{
	calls = 0;
}

struct V {
	int x;
};

__attribute__((noinline)) V operator+(V a, V b)
{
	return V{ a.x + b.x };
}

__attribute__((noinline)) V operator-(V a, V b)
{
	return V{ a.x - b.x };
}

struct Base {
	int x = 1;
	int y = 5;
};

struct Derived : Base {
	int x = 2;	/* hides Base::x */
};

__attribute__((noinline)) int pick(const Derived &d)
{
	return d.x + d.y;
}

template <typename T> __attribute__((noinline)) T twice(T x)
{
	return x * 2;
}

} // namespace ns

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	bool fd3 = fcntl(3, F_GETFD) != -1;
	std::string sql = "select";
	long sum = 0, want = 0;
	auto add1 = [](int x) __attribute__((noinline)) { return x + 1; };

	{
		ns::Db d;

		for (int i = 0; i < n; i++) {
			sum += d.query(sql, i);
			if (fd3)
				dprintf(3, "ns_Db_query_int: id=%d\n", i);
			sum += d.query(i);
			if (fd3)
				dprintf(3, "ns_twice_int: x=%d\n", i);
			sum += ns::twice<int>(i);
			sum += (long)ns::twice<double>(i + 0.5);
			sum += add1(i);
			d.note(std::string_view(sql).substr(0, 3), sql + "-" + std::to_string(i));
			d.sum({ i, 7 });
			sum += (ns::V{ i } + ns::V{ 1 }).x - (ns::V{ i } - ns::V{ 1 }).x;
			want += 2;
			sum += d.id() + static_cast<const ns::Db &>(d).id();
			want += 3;
			sum += ns::pick(ns::Derived{});
			want += 7;
			want += 6 + i + i * 2 + i * 2 + (2 * i + 1) + i + 1;
		}
	}
	std::printf("cxx_names: %d rounds, sum %ld\n", n, sum);
	return sum == want ? 0 : 1;
}
