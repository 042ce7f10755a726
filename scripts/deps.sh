#!/bin/sh
# Check (and as root, install) the Debian packages ptap builds and tests with.
# Exit 0 when everything is there, 2 with the exact apt-get line otherwise.
# `deps.sh --bench` also wants what `make bench` compares against (perf,
# ltrace, gdb, and PostgreSQL's server and pgbench); `deps.sh --fuzz` what `make fuzz` builds with (clang and its
# libFuzzer runtime).
set -u
pkgs=""
need() {	# need PKG-CONFIG-NAME|COMMAND DEBIAN-PACKAGE
	case "$1" in
	cmd:*) command -v "${1#cmd:}" >/dev/null 2>&1 || pkgs="$pkgs $2" ;;
	deb:*) dpkg -s "${1#deb:}" 2>/dev/null | grep -q '^Status: install ok installed' ||
		pkgs="$pkgs $2" ;;
	*) pkg-config --exists "$1" 2>/dev/null || pkgs="$pkgs $2" ;;
	esac
}
need cmd:pkg-config pkg-config
need cmd:gcc gcc
# samples/cxx_throw.cc (return probes are refused on C++ functions)
need cmd:g++ g++
# samples/go and samples/rust (return probes are refused on Go and Rust functions)
need cmd:go golang-go
need cmd:rustc rustc
need cmd:make make
need libelf libelf-dev
need libdw libdw-dev
need capstone libcapstone-dev
need libcap libcap-dev
need criterion libcriterion-dev
# C++ and Rust names demangled (libiberty.a, no pkg-config file)
need deb:libiberty-dev libiberty-dev
need cmd:strip binutils
need cmd:objcopy binutils
# libc's separate debug info: the tests read libc's DWARF through it
need deb:libc6-dbg libc6-dbg
# the attach tests check that a process strace traces is refused
need cmd:strace strace
# the perfetto tests check the trace with tests/integ/perfetto_check.py
need cmd:python3 python3
# make test runs ptap under memcheck (tests/integ/t_valgrind.sh)
need cmd:valgrind valgrind
# t_maps reads gdb's gcore cores back (gdb also runs in make bench)
need cmd:gdb gdb
# the man page is checked as man renders it (tests/integ/t_install.sh)
need cmd:man man-db
# the privilege tests give a copy of ptap cap_sys_ptrace+ep (tests/integ/t_privs.sh)
need cmd:setcap libcap2-bin
# the tests act as another user (setpriv, useradd), lower RLIMIT_NICE
# (prlimit) and trace into PID namespaces (unshare)
need cmd:setpriv util-linux
need cmd:prlimit util-linux
need cmd:unshare util-linux
need cmd:useradd passwd
if [ "${1:-}" = --bench ]; then
	need cmd:perf linux-perf
	need cmd:ltrace ltrace
	# the pgbench row: a real server under load
	need cmd:pgbench postgresql
fi
if [ "${1:-}" = --fuzz ]; then
	need cmd:clang clang
	# libFuzzer and the sanitizer runtimes (only Recommended by clang)
	need deb:libclang-rt-dev libclang-rt-dev
fi
[ -z "$pkgs" ] && exit 0
line="apt-get install -y$pkgs"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "ptap: installing missing packages:$pkgs"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q $pkgs >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1
		apt-get install -y -q $pkgs || { echo "ptap: '$line' failed" >&2; exit 2; }
	fi
	exit 0
fi
echo "ptap: missing packages:$pkgs" >&2
echo "ptap: run as root:  apt-get update && $line" >&2
exit 2
