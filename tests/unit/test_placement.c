/* tests/unit/test_placement.c: --cpu=follow's pure parts -- a thread's CPU
 * from /proc/TID/stat, the run delay from schedstat, and the guard that
 * decides when ptap may run SCHED_IDLE. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "tracer/host/placement.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

/* A /proc/PID/stat line as Linux 6.x writes it, with NAME and processor CPU. */
static void stat_line(char *buf, size_t len, const char *name, int cpu)
{
	snprintf(buf, len, "11204 (%s) R 11200 11200 1049 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 "
		 "1574059 3133440 409 18446744073709551615 94521595211776 94521595231657 "
		 "140734335750608 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0 94521595247664 "
		 "94521595249280 94521742422016 140734335756763 140734335756783 "
		 "140734335756783 140734335758315 0\n", name, cpu);
}

Test(placement, stat_cpu)
{
	char buf[1024];

	stat_line(buf, sizeof(buf), "cat", 1);
	cr_expect(eq(int, placement_stat_cpu(buf), 1));
	stat_line(buf, sizeof(buf), "bench_target", 0);
	cr_expect(eq(int, placement_stat_cpu(buf), 0));
	stat_line(buf, sizeof(buf), "x", 127);
	cr_expect(eq(int, placement_stat_cpu(buf), 127));
	/* a name with spaces and parentheses: counted from the last ')' */
	stat_line(buf, sizeof(buf), "a) R 1 2 3 (b c", 3);
	cr_expect(eq(int, placement_stat_cpu(buf), 3));
	stat_line(buf, sizeof(buf), ") ) )", 5);
	cr_expect(eq(int, placement_stat_cpu(buf), 5));
}

Test(placement, stat_cpu_bad)
{
	cr_expect(eq(int, placement_stat_cpu(""), -1));
	cr_expect(eq(int, placement_stat_cpu("11204 cat R 1 2"), -1), "no ')'");
	cr_expect(eq(int, placement_stat_cpu("11204 (cat) R 11200 11200 1049 0"), -1), "cut short");
	cr_expect(eq(int, placement_stat_cpu("1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 "
					     "1 1 1 1 0 0 0 0 0 0 0 0 0 17 x 0"), -1), "not a number");
	cr_expect(eq(int, placement_stat_cpu("1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 "
					     "1 1 1 1 0 0 0 0 0 0 0 0 0 17 -1 0"), -1), "negative");
	cr_expect(eq(int, placement_stat_cpu("1 (c) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 1 1 "
					     "1 1 1 1 0 0 0 0 0 0 0 0 0 17 2"), 2), "the last field");
}

/* The live file: pinned to one CPU, the test's own thread is on it. */
Test(placement, stat_cpu_live)
{
	cpu_set_t all, one;
	char buf[1024];
	ssize_t n;
	int fd, cpu = -1;

	cr_assert(eq(int, sched_getaffinity(0, sizeof(all), &all), 0));
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)	/* the highest CPU allowed */
		if (CPU_ISSET(c, &all)) {
			cpu = c;
			break;
		}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	cr_assert(eq(int, sched_setaffinity(0, sizeof(one), &one), 0));
	fd = open("/proc/thread-self/stat", O_RDONLY);
	cr_assert(ge(int, fd, 0));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert(gt(long, n, 0));
	buf[n] = '\0';
	cr_expect(eq(int, placement_stat_cpu(buf), cpu), "%s", buf);
	sched_setaffinity(0, sizeof(all), &all);
}

Test(placement, schedstat_delay)
{
	cr_expect(eq(i64, placement_schedstat_delay("2114470961 38107530 9341\n"), 38107530));
	cr_expect(eq(i64, placement_schedstat_delay("0 0 0\n"), 0));
	cr_expect(eq(llong,
		     placement_schedstat_delay("18446744073709551615 9223372036854775807 1\n"),
		     9223372036854775807LL));
	cr_expect(eq(i64, placement_schedstat_delay("12\n"), -1));
	cr_expect(eq(i64, placement_schedstat_delay(""), -1));
}

Test(placement, starved)
{
	cr_expect(eq(int, placement_starved(5 * MS, 0), false));
	cr_expect_not(placement_starved(5 * MS, 4 * MS), "80%% is not yet starved");
	cr_expect(eq(int, placement_starved(5 * MS, 4 * MS + 1), true));
	cr_expect(eq(int, placement_starved(5 * MS, 5 * MS), true));
	cr_expect(placement_starved(1400 * MS, 1399 * MS), "behind a busy loop");
	/* taking turns with the thread it resumes: ptap waits about 30% of the time */
	cr_expect(eq(int, placement_starved(5 * MS, 1500 * 1000), false));
}

/*
 * One guard event: an interval's end at T ms with STOPS stops and SLEEPS
 * sleeps in it, or the watchdog's put-back.
 */
struct step {
	uint64_t t_ms;
	uint64_t stops;		/* stops in the interval */
	uint64_t sleeps;	/* times ptap slept in it */
	char out;		/* 's': the watchdog found ptap starved, 'q': quiet; 0: an interval */
	bool idle;		/* what the guard must say after it */
	uint64_t until_ms;	/* the back-off's end after it */
	uint64_t backoff_ms;	/* the next back-off after it */
};

static struct place_guard run_steps(const struct step *steps, size_t n)
{
	struct place_guard g;
	uint64_t stops = 1000, sleeps = 700;	/* whatever they were at the start */

	placement_guard_init(&g, 0, stops, sleeps);
	cr_expect(eq(int, g.idle, false));
	for (size_t i = 0; i < n; i++) {
		if (steps[i].out) {
			placement_guard_out(&g, steps[i].t_ms * MS, steps[i].out == 's');
		} else {
			stops += steps[i].stops;
			sleeps += steps[i].sleeps;
			cr_expect(eq(int, placement_guard_step(&g, steps[i].t_ms * MS, stops,
							       sleeps), steps[i].idle),
				  "step %zu (t=%lu ms)", i, (unsigned long)steps[i].t_ms);
		}
		cr_expect(eq(int, g.idle, steps[i].idle), "step %zu: noted", i);
		cr_expect(eq(u64, g.until, steps[i].until_ms * MS),
			  "step %zu: until %lu, expected %lu", i, (unsigned long)(g.until / MS),
			  (unsigned long)steps[i].until_ms);
		cr_expect(eq(u64, g.backoff, steps[i].backoff_ms * MS), "step %zu: back-off %lu ms",
			  i, (unsigned long)(g.backoff / MS));
	}
	return g;
}

Test(placement, guard_busy_sleepy_quiet)
{
	static const struct step steps[] = {
		{ 10, 19, 19, 0, false, 0, 1000 },	/* 19 stops in 10 ms: too few */
		{ 20, 20, 20, 0, true, 0, 1000 },	/* 20, slept for each: SCHED_IDLE */
		{ 30, 2000, 0, 0, true, 0, 1000 },	/* idle: its sleeps say nothing */
		{ 40, 3, 0, 0, false, 0, 1000 },	/* too few again: back, no back-off */
		{ 50, 500, 125, 0, true, 0, 1000 },	/* slept for 25% of them: enough */
		{ 55, 0, 0, 'q', false, 0, 1000 },	/* the watchdog: quiet, no back-off */
		{ 65, 500, 124, 0, false, 0, 1000 },	/* 24.8%: a CPU of its own is better */
		{ 75, 500, 500, 0, true, 0, 1000 },
		/* 10 s with no stop (asleep): 1 stop in 10 s is quiet */
		{ 10075, 1, 1, 0, false, 0, 1000 },
		/* a long interval counts its stops per 10 ms */
		{ 10175, 199, 199, 0, false, 0, 1000 },
		{ 10275, 200, 200, 0, true, 0, 1000 },
	};
	struct place_guard g = run_steps(steps, sizeof(steps) / sizeof(steps[0]));

	cr_expect(eq(u64, g.nquiet, 1));
	cr_expect(eq(u64, g.nbusy, 1), "the 24.8%% interval");
	cr_expect(eq(u64, g.nstarved, 0));
}

/* Idle for PLACE_PROBE_NS: one interval as SCHED_OTHER to see whether ptap still sleeps. */
Test(placement, guard_probes)
{
	static const struct step steps[] = {
		{ 10, 100, 100, 0, true, 0, 1000 },		/* idle since 10 */
		{ 1009, 100000, 0, 0, true, 0, 1000 },		/* 999 ms */
		{ 1010, 100, 0, 0, false, 0, 1000 },		/* 1 s: look */
		{ 1020, 100, 10, 0, false, 0, 1000 },		/* 10%: stays out */
		{ 1030, 100, 100, 0, true, 0, 1000 },		/* sleeping again: in */
		{ 2030, 100000, 0, 0, false, 0, 1000 },		/* look again */
		{ 2040, 100, 100, 0, true, 0, 1000 },
	};
	struct place_guard g = run_steps(steps, sizeof(steps) / sizeof(steps[0]));

	cr_expect(eq(u64, g.nbusy, 1));
}

Test(placement, guard_starved_backs_off)
{
	static const struct step steps[] = {
		{ 10, 100, 100, 0, true, 0, 1000 },
		{ 15, 0, 0, 's', false, 1015, 2000 },		/* starved: back off 1 s */
		{ 20, 100, 100, 0, false, 1015, 2000 },		/* busy, but backing off */
		{ 1014, 100000, 100000, 0, false, 1015, 2000 },
		{ 1024, 100, 100, 0, true, 1015, 2000 },	/* over: SCHED_IDLE again */
		{ 1030, 0, 0, 's', false, 3030, 4000 },		/* starved again: 2 s */
		{ 3030, 100, 100, 0, false, 3030, 4000 },	/* quiet over 2 s: stays out */
		{ 3040, 100, 100, 0, true, 3030, 4000 },
		{ 3050, 0, 0, 's', false, 7050, 8000 },		/* and again: 4 s */
		/* idle is not entered while not busy, back-off over or not */
		{ 7060, 1, 1, 0, false, 7050, 8000 },
		{ 7070, 100, 100, 0, true, 7050, 8000 },
		{ 7071, 0, 0, 'q', false, 7050, 8000 },		/* quiet: the back-off stays */
	};
	struct place_guard g = run_steps(steps, sizeof(steps) / sizeof(steps[0]));

	cr_expect(eq(u64, g.nstarved, 3));
	cr_expect(eq(u64, g.nquiet, 1));
	cr_expect(eq(u64, g.nbusy, 0), "backing off is not counted");
}

/* PLACE_CALM_NS after a back-off ended with no new starvation: the next one is 1 s again. */
Test(placement, guard_calm_resets_backoff)
{
	static const struct step steps[] = {
		{ 10, 100, 100, 0, true, 0, 1000 },
		{ 20, 0, 0, 's', false, 1020, 2000 },
		{ 1019, 100000, 100000, 0, false, 1020, 2000 },
		{ 11019, 1, 1, 0, false, 1020, 2000 },		/* 9.999 s after */
		{ 11020, 100, 100, 0, true, 0, 1000 },		/* 10 s: reset */
		{ 11025, 0, 0, 's', false, 12025, 2000 },
	};

	run_steps(steps, sizeof(steps) / sizeof(steps[0]));
}

Test(placement, guard_backoff_max)
{
	struct place_guard g;
	uint64_t now = 0, stops = 0;

	placement_guard_init(&g, now, stops, stops);
	for (int i = 0; i < 20; i++) {
		now = g.until > now ? g.until : now + 10 * MS;
		stops += 1000000;
		cr_expect(placement_guard_step(&g, now, stops, stops), "round %d", i);
		now += 5 * MS;
		placement_guard_out(&g, now, true);
		cr_expect(eq(int, g.idle, false));
		cr_expect(eq(u64, g.until,
			     now + (i < 6 ? (1ULL << i) * SEC : PLACE_BACKOFF_MAX_NS)), "round %d",
			  i);
	}
	cr_expect(eq(u64, g.backoff, PLACE_BACKOFF_MAX_NS));
	cr_expect(eq(u64, g.nstarved, 20));
	placement_guard_out(&g, now, false);
	cr_expect(eq(u64, g.nquiet, 1));
	cr_expect(eq(u64, g.nstarved, 20));
}
