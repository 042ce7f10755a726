# ptap: one non-recursive Makefile.  `make` builds build/ptap; `make test`,
# `make demo` and `make bench` first check (as root: install) the Debian
# packages ptap needs (scripts/deps.sh).
ARCH	?= $(shell uname -m)
O	?= build
PKGS	:= libdw libelf capstone libcap
# Recursively expanded on purpose: pkg-config runs only once `deps` is done.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS)) -liberty
CFLAGS	?= -g -O2
CFLAGS	+= -std=gnu11 -Wall -Wextra -Wshadow -Werror -D_GNU_SOURCE -iquote .
# ptap --version: the commit it was built from (git describe), else "unknown"
PTAP_VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
%/cmd/main.o: CFLAGS += -DPTAP_VERSION='"$(PTAP_VERSION)"'
ALL_CFLAGS = $(CFLAGS) $(PKG_CFLAGS)

# arch/common/: what every architecture shares; arch/$(ARCH)/: the native one.
SRCS	:= $(wildcard probes/*.c dwarf/*.c arch/common/*.c arch/$(ARCH)/*.c tracer/*.c \
		  tracer/*/*.c cmd/*.c)
LIBOBJS	:= $(patsubst %.c,$(O)/%.o,$(filter-out cmd/main.c,$(SRCS)))
UNITSRCS := $(wildcard tests/unit/*.c)
UNITOBJS := $(patsubst %.c,$(O)/%.o,$(UNITSRCS))
BENCHSRCS := $(wildcard tests/bench/*.c)

ifneq ($(V),1)
Q_CC	= @echo '  CC      ' $@;
Q_LD	= @echo '  LD      ' $@;
Q	= @
endif

all: $(O)/ptap

deps:
	$(Q)scripts/deps.sh

.PHONY: all deps test unit integ demo bench samples lint clean soak install

$(O)/%.o: %.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# The agent's bytes (generated: see below) go in too; the fuzz builds leave them out.
$(O)/libptap.a: $(LIBOBJS) $(O)/agent/agent_blob.o
	$(Q)rm -f $@; $(AR) rcs $@ $^

# ---- the in-process agent (issue 20, agent/agent.h) -------------------------
# Freestanding, position-independent, general registers only (the trampoline
# saves no vector register), one flat blob with no relocation
# (scripts/agent-blob.sh checks), carried in libptap as agent_blob[].  The
# compiler without the flags a sanitizer build adds to CC: the agent runs
# inside targets, with no runtime of its own.  No loop made a call of
# memset or memcpy (the agent's own are such loops).
AGENT_CC := $(firstword $(CC))
AGENT_SRCS := agent/agent.c probes/fetch_eval.c probes/filter_eval.c probes/ring.c
AGENT_OBJS := $(patsubst %.c,$(O)/agent-obj/%.o,$(AGENT_SRCS))
AGENT_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -iquote . -O2 -ffreestanding \
	-fno-tree-loop-distribute-patterns -fPIC -fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-mgeneral-regs-only -fvisibility=hidden -fcf-protection=none

$(O)/agent-obj/%.o: %.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(AGENT_CC) $(AGENT_CFLAGS) -MMD -MP -c -o $@ $<

$(O)/agent/agent.elf: $(AGENT_OBJS) agent/agent.lds
	@mkdir -p $(@D)
	$(Q_LD)$(AGENT_CC) -nostdlib -shared -Wl,-Bsymbolic -Wl,-T,agent/agent.lds -Wl,-z,noexecstack \
		-Wl,--no-warn-rwx-segments -Wl,--build-id=none -o $@ $(AGENT_OBJS)

$(O)/agent/agent_blob.c: $(O)/agent/agent.elf scripts/agent-blob.sh
	$(Q)scripts/agent-blob.sh $< $@

$(O)/agent/agent_blob.o: $(O)/agent/agent_blob.c
	$(Q_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# rebuilt when the version changes (a commit, a dirty tree), not only its sources
$(O)/cmd/main.o: $(O)/.version
$(O)/.version: FORCE
	@mkdir -p $(@D)
	@echo '$(PTAP_VERSION)' | cmp -s - $@ || echo '$(PTAP_VERSION)' >$@
.PHONY: FORCE
FORCE:

$(O)/ptap: $(O)/cmd/main.o $(O)/libptap.a
	$(Q_LD)$(CC) -o $@ $^ $(PKG_LIBS)

$(O)/unit: $(UNITOBJS) $(O)/libptap.a
	$(Q_LD)$(CC) -o $@ $^ $(PKG_LIBS) -lcriterion

# ---- samples: fixed flags per binary; the tests depend on them ----------
SAMPLE_CFLAGS := -Wall -Wextra -Werror -fno-omit-frame-pointer
S := $(O)/samples
QS_VARIANTS := $(S)/query_server $(S)/query_server-O0 $(S)/query_server-O2 \
	       $(S)/query_server-stripped $(S)/query_server-nopie
DWARF_SAMPLES := $(S)/structs-O0 $(S)/structs-O2 $(S)/structs-dwarf4 $(S)/inline-O0 \
		 $(S)/inline-O2 $(S)/many_funcs $(S)/dwarf_edges-O0 $(S)/dwarf_edges-O2 $(S)/libsplit_bid.so $(S)/libsplit_link.so \
		 $(S)/split_host $(S)/cfi_split
RET_SAMPLES := $(S)/retprobe $(S)/retprobe-O0 $(S)/cxx_throw $(S)/cxx_names $(S)/cxx_names-O2
LANG_SAMPLES := $(S)/go/app $(S)/go/app-nodwarf $(S)/go/app-stripped $(S)/rust/unwind \
		$(S)/rust/unwind-nodwarf $(S)/rust/unwind-v0 $(S)/rust/unwind-nomark \
		$(S)/rust/unwind-v0-nomark $(S)/go/strs $(S)/rust/strs
IFUNC_SAMPLES := $(S)/ifunc-O2 $(S)/ifunc-O0 $(S)/ifunc-pick2
STACK_SAMPLES := $(S)/stacks-O0 $(S)/stacks-O2 $(S)/stacks-O2-nofp $(S)/libstacks.so \
		 $(S)/account
SAMPLES := $(QS_VARIANTS) $(S)/insn_zoo $(S)/dlopen_host $(S)/libplugin.so $(S)/fork_race \
	   $(DWARF_SAMPLES) $(RET_SAMPLES) $(S)/sysio $(LANG_SAMPLES) $(IFUNC_SAMPLES) \
	   $(STACK_SAMPLES) $(S)/shadow_name
samples: $(SAMPLES)

# a variable named as a libc function (record's search of the libraries)
$(S)/shadow_name: samples/shadow_name.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $< -ldl

# record -g: -O0 and -O2 with frame pointers, -O2 without (CFI only)
$(S)/stacks-O0: samples/stacks.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -o $@ $< -ldl
$(S)/stacks-O2: samples/stacks.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $< -ldl
$(S)/stacks-O2-nofp: samples/stacks.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -fomit-frame-pointer -O2 -g -o $@ $< -ldl
# no sibling calls: each function's return comes after the work it calls for
$(S)/account: samples/account.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -fno-optimize-sibling-calls -g -o $@ $<
$(S)/libstacks.so: samples/libstacks.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -fPIC -shared -o $@ $<

$(S)/query_server $(S)/query_server-O2: samples/query_server.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -rdynamic -O2 -g -o $@ $<
$(S)/query_server-O0: samples/query_server.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -rdynamic -O0 -g -o $@ $<
$(S)/query_server-nopie: samples/query_server.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -rdynamic -O2 -g -no-pie -fno-pie -o $@ $<
$(S)/query_server-stripped: $(S)/query_server-O2
	$(Q)strip -o $@ $<
$(S)/insn_zoo: samples/insn_zoo.c samples/insn_zoo_$(ARCH).S samples/asm_$(ARCH).h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -pthread -o $@ $(filter %.c %.S,$^)

$(S)/dlopen_host: samples/dlopen_host.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $< -ldl
$(S)/fork_race: samples/fork_race.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -pthread -o $@ $<
$(S)/libplugin.so: samples/plugin.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -iquote . -O2 -g -fPIC -shared -o $@ $<

# Scenario targets (issue 4): samples/scen/NAME.c puts a tracer in one hard
# case (threads, signals, fork, exec, mappings, detach) and checks itself
# (samples/selfcheck.h), linked with samples/scen/NAME_$(ARCH).S when there is
# one; samples/scen/libNAME.c is a shared library.  Same flags for all, so a
# new scenario needs no rule.
SCEN_PROGS := $(filter-out samples/scen/lib%,$(wildcard samples/scen/*.c))
SCEN_LIBS := $(wildcard samples/scen/lib*.c)
SCEN_SAMPLES := $(patsubst samples/scen/%.c,$(S)/scen/%,$(SCEN_PROGS)) \
		$(patsubst samples/scen/%.c,$(S)/scen/%.so,$(SCEN_LIBS))
samples: $(SCEN_SAMPLES)
.SECONDEXPANSION:
$(S)/scen/%: samples/scen/%.c $$(wildcard samples/scen/%_$(ARCH).S) samples/selfcheck.h \
	     samples/asm_$(ARCH).h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -iquote . -O2 -g -pthread -rdynamic -o $@ $(filter %.c %.S,$^) -ldl
$(S)/scen/%.so: samples/scen/%.c samples/selfcheck.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -iquote . -O2 -g -fPIC -shared -o $@ $<

# DWARF samples (issue 3): each states on fd 3 what ptap prints.
STRUCTS_SRCS := samples/structs.c samples/structs2.c
STRUCTS_DEPS := $(STRUCTS_SRCS) samples/structs.h samples/expect.h
$(S)/structs-O0: $(STRUCTS_DEPS) | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -o $@ $(STRUCTS_SRCS)
$(S)/structs-O2: $(STRUCTS_DEPS) | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $(STRUCTS_SRCS)
$(S)/structs-dwarf4: $(STRUCTS_DEPS) | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -gdwarf-4 -o $@ $(STRUCTS_SRCS)
$(S)/inline-O0 $(S)/inline-O2: $(S)/inline-%: samples/inline.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -$* -g -o $@ $<
$(S)/dwarf_edges-O0 $(S)/dwarf_edges-O2: $(S)/dwarf_edges-%: samples/dwarf_edges.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -$* -g -o $@ $<
$(S)/many_funcs: samples/many_funcs.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -o $@ $<

# CFI in .debug_frame for one file, in .eh_frame for the other (the variable
# at probe_here's frame base needs the second)
$(S)/cfi_split: samples/cfi_split.c samples/cfi_split_nounwind.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-c -o $@-nounwind.o samples/cfi_split_nounwind.c
	$(Q)$(CC) $(SAMPLE_CFLAGS) -O0 -g -o $@ $< $@-nounwind.o && rm -f $@-nounwind.o

# Split debug info.  libsplit_bid.so: the DWARF goes to
# $(S)/debug/.build-id/NN/REST.debug (found with --debuginfo-dir $(S)/debug),
# the library keeps its build-id and .symtab (strip -g).  libsplit_link.so:
# the DWARF goes to $(S)/libsplit_link.so.debug, named by .gnu_debuglink.
$(S)/libsplit_bid.so: samples/libsplit_bid.c samples/split.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -fPIC -shared -Wl,--build-id -o $@.full $<
	$(Q)id=$$(readelf -n $@.full | awk '/Build ID:/ { print $$3 }'); \
	d=$(S)/debug/.build-id/$$(echo $$id | cut -c1-2); \
	mkdir -p $$d && objcopy --only-keep-debug $@.full $$d/$$(echo $$id | cut -c3-).debug
	$(Q)strip -g -o $@ $@.full && rm -f $@.full
$(S)/libsplit_link.so: samples/libsplit_link.c samples/split.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -fPIC -shared -Wl,--build-id -o $@.full $<
	$(Q)objcopy --only-keep-debug $@.full $@.debug
	$(Q)strip -g -o $@.tmp $@.full && objcopy --add-gnu-debuglink=$@.debug $@.tmp
	$(Q)mv $@.tmp $@ && rm -f $@.full
$(S)/split_host: samples/split_host.c samples/split.h samples/expect.h $(S)/libsplit_bid.so \
		 $(S)/libsplit_link.so | deps
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $< -L$(S) -lsplit_bid -lsplit_link \
		-Wl,-rpath,'$$ORIGIN'

# Return probes (issues 5, 19): retprobe states on fd 3 what ptap records (the
# probes are in its header comment); so does cxx_throw, C++ whose exceptions
# leave probed calls.
$(S)/retprobe: samples/retprobe.c samples/expect.h samples/selfcheck.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -pthread -o $@ $<
$(S)/retprobe-O0: samples/retprobe.c samples/expect.h samples/selfcheck.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -pthread -o $@ $<
$(S)/cxx_throw: samples/cxx_throw.cc | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CXX) $(SAMPLE_CFLAGS) -O2 -g -o $@ $<
# C++ names as C++ writes them (issue 21): namespaces, overloads, templates, a lambda
$(S)/cxx_names: samples/cxx_names.cc | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CXX) $(SAMPLE_CFLAGS) -O0 -g -o $@ $<
$(S)/cxx_names-O2: samples/cxx_names.cc | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CXX) $(SAMPLE_CFLAGS) -O2 -g -o $@ $<

# Go and Rust (issue 17): return probes are refused on their functions (Go
# copies goroutine stacks, a Rust panic unwinds), entry probes work.  Each
# with DWARF, and without it (-nodwarf: strip -g, the symbol table kept, so
# the functions can be named); app-stripped is stripped whole, for the
# markers that remain (tests/unit/test_langs.c).  unwind-nomark and
# unwind-v0-nomark (rustc's v0 mangling) have neither DWARF nor the Rust
# runtime's markers, like a program linked to std as a shared library (-C
# prefer-dynamic): only the mangled names tell.  go builds without modules,
# its cache under $(O), so nothing is written to $HOME.
GO_ENV := GOCACHE=$(abspath $(O))/go-cache GOPATH=$(abspath $(O))/go-path GO111MODULE=off
$(S)/go/app: samples/go/app.go | deps
	@mkdir -p $(@D)
	@echo '  GO      ' $@
	$(Q)$(GO_ENV) go build -o $@ $<
$(S)/rust/unwind: samples/rust/unwind.rs | deps
	@mkdir -p $(@D)
	@echo '  RUSTC   ' $@
	$(Q)MAKEFLAGS= rustc -g -C opt-level=1 -o $@ $<
# after unwind: two rustc in one directory could share temporary file names
$(S)/rust/unwind-v0: samples/rust/unwind.rs | deps $(S)/rust/unwind
	@mkdir -p $(@D)
	@echo '  RUSTC   ' $@
	$(Q)MAKEFLAGS= rustc -g -C opt-level=1 -C symbol-mangling-version=v0 -o $@ $<
# Strings of Go and Rust (issue 21): a string argument in two registers
$(S)/go/strs: samples/go/strs.go | deps
	@mkdir -p $(@D)
	@echo '  GO      ' $@
	$(Q)$(GO_ENV) go build -o $@ $<
$(S)/rust/strs: samples/rust/strs.rs | deps $(S)/rust/unwind-v0
	@mkdir -p $(@D)
	@echo '  RUSTC   ' $@
	$(Q)MAKEFLAGS= rustc -g -C opt-level=1 -o $@ $<
$(S)/rust/unwind-nomark $(S)/rust/unwind-v0-nomark: %-nomark: %
	$(Q)objcopy --strip-debug -R .comment --wildcard --strip-symbol='*rust_begin_unwind' \
		--strip-symbol='*__rust_start_panic' $< $@
$(S)/go/app-nodwarf $(S)/rust/unwind-nodwarf: %-nodwarf: %
	$(Q)strip -g -o $@ $<
$(S)/go/app-stripped: $(S)/go/app
	$(Q)strip -o $@ $<

# Syscall records (issue 6): sysio's nest mode states on fd 3 what ptap
# records (its header comment); its loop mode is an attach target.
$(S)/sysio: samples/sysio.c samples/expect.h samples/selfcheck.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $<

# IFUNCs (issue 17 item 6): text_len's resolver chooses by the CPU (ifunc-O2,
# ifunc-O0) or as built (ifunc-pick2: len_words); the sample states on fd 3
# what ptap records of it and of libc's strlen.
$(S)/ifunc-O2 $(S)/ifunc-O0: $(S)/ifunc-%: samples/ifunc.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -$* -g -o $@ $<
$(S)/ifunc-pick2: samples/ifunc.c samples/expect.h | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -DPICK=2 -o $@ $<

# ---- unit-test fixtures: fixed flags, like the samples ---------------------
FX := $(O)/tests/fixtures
POINTS_FX_SRCS := tests/unit/fixtures/points_fx.c tests/unit/fixtures/points_fx2.c
UNIT_FIXTURES := $(FX)/points-O0 $(FX)/points-O2
$(FX)/points-O0: $(POINTS_FX_SRCS) | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O0 -g -o $@ $^
$(FX)/points-O2: $(POINTS_FX_SRCS) | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -g -o $@ $^

# ---- tests -----------------------------------------------------------------
# The unit tests read the samples and fixtures next to the unit binary.
unit: $(O)/unit samples $(UNIT_FIXTURES)
	$(O)/unit

integ: $(O)/ptap samples
	tests/integ/run.sh $(O)

test: deps lint
	$(Q)$(MAKE) --no-print-directory $(O)/ptap $(O)/unit samples $(UNIT_FIXTURES)
	$(O)/unit
	tests/integ/run.sh $(O)
	$(Q)$(MAKE) --no-print-directory unit-asan integ-asan
	$(Q)$(MAKE) --no-print-directory fuzz-replay

# ---- sanitizers (issue 9) ---------------------------------------------------
# $(SAN_O) holds libptap, ptap and the unit binary built with ASan and UBSan
# (UBSan fatal).  CC carries the flags, so the link lines get them too; CFLAGS
# comes through the environment, so this Makefile still appends its own.  The
# samples and fixtures are $(O)'s, linked in: the tests expect them as built
# there, not instrumented.  tests/sanitize.sh fails a run on any sanitizer
# report (LeakSanitizer's included).  ptap under valgrind is an integration
# test of $(O) (tests/integ/t_valgrind.sh).
SAN_O	:= $(O)-asan
SAN_CC	:= $(CC) -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The integration tests `make test` runs on the ASan ptap (about 45 s).  Not
# fetch_* or valgrind_* (so SAN_INTEG=. fails those): they run ptap under
# strace or valgrind, and LeakSanitizer cannot check a ptraced process (it
# ptraces the process's own threads at exit); valgrind and ASan exclude each other.
SAN_SETS := args bad dwarf list maps query report zoo proc syscalls retprobe mmap_events \
	    attach_duration attach_target_exits glob ifunc
SAN_SPACE := $() $()
SAN_INTEG ?= ^test_($(subst $(SAN_SPACE),|,$(strip $(SAN_SETS))))

.PHONY: san-build unit-asan integ-asan san-clean
san-build: deps
	$(Q)CFLAGS='-g -O1' $(MAKE) --no-print-directory O=$(SAN_O) CC='$(SAN_CC)' \
		$(SAN_O)/ptap $(SAN_O)/unit
	$(Q)mkdir -p $(SAN_O)/tests && ln -sfn $(abspath $(S)) $(SAN_O)/samples && \
		ln -sfn $(abspath $(FX)) $(SAN_O)/tests/fixtures

unit-asan: san-build samples $(UNIT_FIXTURES)
	tests/sanitize.sh $(SAN_O)/reports-unit $(SAN_O)/unit

integ-asan: san-build samples
	tests/sanitize.sh $(SAN_O)/reports-integ tests/integ/run.sh $(SAN_O) '$(SAN_INTEG)'

clean: san-clean
san-clean:
	rm -rf $(SAN_O)

# ---- fuzzing (issue 9): tests/fuzz/ ------------------------------------------
# `make fuzz` builds one libFuzzer binary per harness tests/fuzz/fuzz_NAME.c
# with clang, against the library compiled again with clang and the
# sanitizers in $(FZ); `make fuzz-run SECS=N` fuzzes each for N seconds from
# its corpus tests/fuzz/corpus/NAME/ (new inputs go to $(FZ)/corpus/NAME/,
# crashes to $(FZ)/crashes/NAME/: a fixed crash's input joins the corpus as
# crash-WHAT).  `make fuzz-replay` (part of `make test`, no clang) runs each
# corpus once through tests/fuzz/replay.c built with gcc.
FZ		:= $(O)-fuzz
FUZZ_NAMES	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_util.c,\
			$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_CC		?= clang
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS	= -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -std=gnu11 -Wall -Wextra \
		  -Wshadow -Werror -D_GNU_SOURCE -iquote . $(PKG_CFLAGS)
FUZZ_LIBOBJS	:= $(patsubst $(O)/%,$(FZ)/%,$(LIBOBJS))
SECS		?= 60
# libdw has no frame pointers: the slow unwinder, so that LSan sees who called it.
FUZZ_ENV	:= LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp:print_suppressions=0 \
		  ASAN_OPTIONS=fast_unwind_on_malloc=0

$(FZ)/%.o: %.c | deps-fuzz
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(FZ)/libptap.a: $(FUZZ_LIBOBJS)
	$(Q)rm -f $@; $(AR) rcs $@ $^
$(FZ)/fuzz_%: $(FZ)/tests/fuzz/fuzz_%.o $(FZ)/tests/fuzz/fuzz_util.o $(FZ)/libptap.a
	$(Q_LD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS)
# The replay binaries: gcc, with the library compiled again with ASan and
# UBSan (in $(O)/fuzz/), so that a regression input's memory error shows.
REPLAY_LIBOBJS	:= $(patsubst $(O)/%,$(O)/fuzz/%,$(LIBOBJS))
$(O)/fuzz/%.o: %.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(ALL_CFLAGS) $(FUZZ_SAN) -MMD -MP -c -o $@ $<
$(O)/fuzz/libptap.a: $(REPLAY_LIBOBJS)
	$(Q)rm -f $@; $(AR) rcs $@ $^
$(O)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_util.c \
		    tests/fuzz/fuzz.h $(O)/fuzz/libptap.a | deps
	$(Q_LD)$(CC) $(ALL_CFLAGS) $(FUZZ_SAN) -o $@ $(filter %.c %.a,$^) $(PKG_LIBS)

.PRECIOUS: $(FZ)/tests/fuzz/%.o
deps-fuzz:
	$(Q)scripts/deps.sh --fuzz

fuzz: $(patsubst %,$(FZ)/fuzz_%,$(FUZZ_NAMES))

fuzz-run: fuzz
	$(Q)for n in $(FUZZ_NAMES); do mkdir -p $(FZ)/corpus/$$n $(FZ)/crashes/$$n; \
		echo "fuzz-run: $$n for $(SECS)s"; \
		$(FUZZ_ENV) $(FZ)/fuzz_$$n -max_total_time=$(SECS) -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=$(FZ)/crashes/$$n/ -print_final_stats=1 \
			$(FZ)/corpus/$$n tests/fuzz/corpus/$$n || exit 1; done

fuzz-replay: $(patsubst %,$(O)/fuzz/replay_%,$(FUZZ_NAMES))
	$(Q)for n in $(FUZZ_NAMES); do \
		$(FUZZ_ENV) $(O)/fuzz/replay_$$n tests/fuzz/corpus/$$n || exit 1; done

.PHONY: fuzz fuzz-run fuzz-replay deps-fuzz
-include $(FUZZ_LIBOBJS:.o=.d) $(REPLAY_LIBOBJS:.o=.d)
# ---- end of fuzzing ----------------------------------------------------------

# The racy scenarios (test_racy_*) run RACY_RUNS times each: 5 in `make test`.
soak: deps
	$(Q)$(MAKE) --no-print-directory $(O)/ptap samples
	RACY_RUNS=100 tests/integ/run.sh $(O) '^test_racy_'

# `make install [PREFIX=/usr/local] [DESTDIR=]`: the program and its man page.
PREFIX ?= /usr/local
install: $(O)/ptap
	install -D -m 0755 $(O)/ptap $(DESTDIR)$(PREFIX)/bin/ptap
	install -D -m 0644 man/ptap.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptap.1

demo: deps
	$(Q)$(MAKE) --no-print-directory $(O)/ptap $(S)/query_server
	./$(O)/ptap record -e 'exec_query %di:string %si:u32' -- ./$(S)/query_server samples/queries.txt
	@echo '--- what each query returned and how long it took, summarised by ptap report:'
	./$(O)/ptap record --format json -o $(O)/demo.json -e 'exec_query%return $$retval query_string' \
		-- ./$(S)/query_server samples/queries.txt
	./$(O)/ptap report $(O)/demo.json
	@echo '--- the I/O each query caused (--syscalls, --context), summarised by ptap report --by-context:'
	./$(O)/ptap record --format json -o $(O)/demo-io.json -e 'exec_query query_string:string' \
		--context exec_query --syscalls pread64,pwrite64,fsync,openat \
		-- ./$(S)/query_server samples/queries.txt $(O)/demo-results.txt
	./$(O)/ptap report --by-context $(O)/demo-io.json
	@echo '--- what each query cost (--account): the first to read the table big read it from storage'
	QS_TABLE=$(O)/demo-table ./$(O)/ptap record -q -e 'exec_query%return query_string' \
		--account exec_query__return -- ./$(S)/query_server samples/queries-cache.txt \
		$(O)/demo-results.txt

$(O)/bench/bench_target: tests/bench/bench_target.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -O2 -pthread -no-pie -fno-pie -o $@ $<

# The writers' benchmark formats records with ptap's own code: linked with libptap.a.
$(O)/bench/writers: tests/bench/writers.c $(O)/libptap.a | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -o $@ $< $(O)/libptap.a $(PKG_LIBS)

# The agent's bench runs the agent blob in its own process (tests/bench/agent.c).
$(O)/bench/agent: tests/bench/agent.c $(O)/libptap.a | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(ALL_CFLAGS) -O2 -pthread -o $@ $< $(O)/libptap.a $(PKG_LIBS)

$(O)/bench/%: tests/bench/%.c | deps
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(SAMPLE_CFLAGS) -rdynamic -O2 -g -pthread -o $@ $<

# The tools make bench compares against are optional: their rows say why
# there are no figures.
bench:
	$(Q)scripts/deps.sh
	$(Q)scripts/deps.sh --bench || echo 'make bench: the rows of the tools missing say so'
	$(Q)$(MAKE) --no-print-directory $(O)/ptap $(patsubst tests/bench/%.c,$(O)/bench/%,$(BENCHSRCS))
	tests/bench/run.sh $(O)

# The modules depend on each other one way, so that each can be read and tested knowing only
# those below it (scripts/lint-layers.pl; the calls are read from the objects): no include or
# call cycle; probes/ uses nothing of tracer/, dwarf/, cmd/ or arch/, arch/ nothing of tracer/,
# dwarf/ or cmd/, dwarf/ nothing of tracer/ or cmd/, and nothing outside cmd/ uses cmd/; libelf
# and libdw are included only in dwarf/.  A failed unit-test assertion prints the values it
# compared (scripts/lint-asserts.pl).
lint: $(O)/libptap.a $(O)/cmd/main.o
	$(Q)perl scripts/lint-asserts.pl tests/unit/*.c
	$(Q)perl scripts/lint-layers.pl --selftest
	$(Q)perl scripts/lint-layers.pl --objdir $(O)
	$(Q)scripts/lint-freestanding.sh '$(CC)' probes/fetch_eval.c probes/filter_eval.c probes/ring.c

clean:
	rm -rf $(O)

-include $(LIBOBJS:.o=.d) $(UNITOBJS:.o=.d) $(AGENT_OBJS:.o=.d) $(O)/cmd/main.d $(O)/bench/writers.d
