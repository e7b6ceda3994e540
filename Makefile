# Makefile -- build, test, bench and install acre.
#
# `make check` alone works on a fresh Debian machine: config.mk is made by
# ./configure when missing (with --install-deps when run as root on Debian).
# Out-of-tree builds: run /path/to/configure in another directory, which
# writes a Makefile there that sets SRCDIR and includes this one.

SRCDIR ?= .
B := build

.DEFAULT_GOAL := all

AUTO_DEPS := $(shell [ "$$(id -u)" = 0 ] && [ -f /etc/debian_version ] && \
	echo --install-deps)

config.mk: $(SRCDIR)/configure
	$(SRCDIR)/configure $(AUTO_DEPS) $(CONFIGURE_ARGS)

NOCONF_GOALS := clean distclean format format-check
ifeq ($(filter-out $(NOCONF_GOALS),$(MAKECMDGOALS))$(if $(MAKECMDGOALS),,all),)
else
-include config.mk
endif

SONAME := libacre.so.0
VERSION := 0.1.0
# Mistakes of type, never style, stop the build: a call through the wrong
# interface must not link and run by accident.
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Werror=incompatible-pointer-types \
	-Werror=implicit-function-declaration -Werror=int-conversion
ALL_CFLAGS = -std=gnu99 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SAN) \
	-I$(SRCDIR)/include -I$(SRCDIR)/engine -I$(SRCDIR)/compiler
ALL_LDFLAGS = $(LDFLAGS) $(SAN)

LIB_SRC := $(sort $(wildcard $(SRCDIR)/engine/*.c $(SRCDIR)/compiler/*.c))
LIB_HDR := $(wildcard $(SRCDIR)/include/*.h $(SRCDIR)/engine/*.h \
	$(SRCDIR)/compiler/*.h)
LIB_OBJ := $(patsubst $(SRCDIR)/%.c,$(B)/pic/%.o,$(LIB_SRC))
TEST_SRC := $(sort $(wildcard $(SRCDIR)/tests/unit/*.c $(SRCDIR)/tests/oracle/*.c))
BENCH_SRC := $(sort $(wildcard $(SRCDIR)/bench/*.c))
CLI_SRC := $(sort $(wildcard $(SRCDIR)/cli/*.c))
FUZZ_SRC := $(sort $(wildcard $(SRCDIR)/tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(patsubst $(SRCDIR)/tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60

.PHONY: all check unit check-exports hdrcheck doccheck bench bench-smoke \
	bench-check demo \
	fuzz fuzz-smoke fuzz-cov \
	install uninstall installcheck format format-check clean distclean tsan \
	oom-full

all: $(B)/$(SONAME) $(B)/libacre.a $(B)/acre $(B)/acre.pc

# ---- library --------------------------------------------------------------
$(B)/pic/%.o: $(SRCDIR)/%.c $(LIB_HDR) config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(B)/$(SONAME): $(LIB_OBJ) $(SRCDIR)/acre.map
	$(CC) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=$(SRCDIR)/acre.map -Wl,--no-undefined \
		$(ALL_LDFLAGS) -o $(B)/libacre.so.$(VERSION) $(LIB_OBJ) $(LIB_LIBS)
	ln -sf libacre.so.$(VERSION) $@
	ln -sf $(SONAME) $(B)/libacre.so

$(B)/libacre.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

$(B)/acre.pc: $(SRCDIR)/acre.pc.in config.mk
	$(PC_SED) $< >$@

# ---- the acre command (jemalloc is its allocator, never the library's) ----
$(B)/acre: $(CLI_SRC) $(wildcard $(SRCDIR)/cli/*.h) $(B)/libacre.a $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -I$(SRCDIR)/cli -o $@ $(CLI_SRC) \
		$(B)/libacre.a $(ALL_LDFLAGS) $(LIB_LIBS) $(JEMALLOC_LIBS)

demo: $(B)/acre
	@sh $(SRCDIR)/cli/demo.sh $(B)/acre

# ---- tests ------------------------------------------------------------------
# One object per test file, so that make -j builds them side by side.
TEST_HDR := $(wildcard $(SRCDIR)/tests/unit/*.h $(SRCDIR)/tests/oracle/*.h)
TEST_OBJ := $(patsubst $(SRCDIR)/%.c,$(B)/tobj/%.o,$(TEST_SRC))
$(B)/tobj/%.o: $(SRCDIR)/%.c $(LIB_HDR) $(TEST_HDR) config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) $(TEST_CFLAGS) -I$(SRCDIR)/tests/unit \
		-I$(SRCDIR)/tests/oracle -c $< -o $@

$(B)/acre-tests: $(TEST_OBJ) $(B)/libacre.a
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $(TEST_OBJ) $(B)/libacre.a \
		$(ALL_LDFLAGS) $(LIB_LIBS) $(TEST_LIBS)

unit: $(B)/acre-tests
	$(B)/acre-tests --jobs=2

# Only acre_* may leave the shared library.
check-exports: $(B)/$(SONAME)
	@bad=$$(nm -D --defined-only $(B)/$(SONAME) | awk '{print $$3}' | \
		grep -v '^acre_' | grep -v '^ACRE_' || true); \
	if [ -n "$$bad" ]; then echo "exported non-acre symbols: $$bad"; exit 1; fi; \
	echo "exports: only acre_* ($$(nm -D --defined-only $(B)/$(SONAME) | \
		grep -c ' T acre_') functions)"

# Every header compiles alone, strict C99 and C++11 (tests/hdrcheck.sh).
hdrcheck:
	@sh $(SRCDIR)/tests/hdrcheck.sh $(SRCDIR) $(B) '$(CC)' '$(CXX)' \
		$(LIB_CFLAGS) $(TEST_CFLAGS) $(BENCH_CFLAGS)

# acre.h is the reference of the API; acre(3) agrees with it
# (tests/doccheck.sh).
doccheck:
	@sh $(SRCDIR)/tests/doccheck.sh $(SRCDIR)

check: all unit check-exports hdrcheck doccheck bench-smoke installcheck golden \
	differential-389-replay differential-389-suite differential-389-ger-replay

# ---- ThreadSanitizer: the policy thread tests ------------------------------
# Criterion's runner cannot start under TSan (it maps its arena at random
# addresses that TSan's shadow holds: Criterion issue #274), so the thread
# tests are also built alone (-DACRE_THREAD_MAIN) and run in one process.
# `make tsan` builds the library and them with -fsanitize=thread in
# $(TSAN_B)/ (CC may be gcc or clang) and fails on the first report.
TSAN_B := $(B)/tsan
TSAN_SAN := -fsanitize=thread -fno-omit-frame-pointer
TSAN_RUN_OPTIONS := halt_on_error=1:exitcode=66:second_deadlock_stack=1

$(B)/policy-thread-test: $(SRCDIR)/tests/unit/policy_thread_test.c \
		$(B)/libacre.a $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -DACRE_THREAD_MAIN -o $@ $< \
		$(B)/libacre.a $(ALL_LDFLAGS) $(LIB_LIBS)

tsan:
	@$(MAKE) --no-print-directory B=$(TSAN_B) SAN='$(TSAN_SAN)' \
		$(TSAN_B)/policy-thread-test
	TSAN_OPTIONS='$(TSAN_RUN_OPTIONS)' $(TSAN_B)/policy-thread-test

# ---- out of memory: the sweeps in full -------------------------------------
# tests/unit/oom_test.c fails each allocation of an operation in turn and
# checks the failure is clean (ACRE_ERR_NOMEM or a denial, nothing granted,
# nothing leaked, shared objects still right).  `make check` runs every
# few N; this runs every N (ACRE_OOM_FULL=1).  The test allocator
# (tests/unit/alloc_hook.h) replaces malloc in the test binary, which
# AddressSanitizer and ThreadSanitizer cannot allow (their allocators must
# see every block): in a sanitizer build the sweeps are not compiled, so
# this target refuses one; run it from a plain build.
oom-full: $(B)/acre-tests
	@if [ -n "$(SAN)" ]; then \
		echo "oom-full: needs a build without sanitizers" \
			"(tests/unit/alloc_hook.h)"; exit 1; fi
	ACRE_OOM_FULL=1 $(B)/acre-tests --jobs=2 --filter 'oom*/*'

# ---- benchmarks ------------------------------------------------------------
# The policy, collective and ACI rows link the reference evaluators (not
# their Criterion tests).
$(B)/acre-bench: $(BENCH_SRC) $(B)/libacre.a $(LIB_HDR) \
		$(wildcard $(SRCDIR)/tests/oracle/openldap_oracle*.[ch]) \
		$(wildcard $(SRCDIR)/tests/oracle/collective_oracle.[ch]) \
		$(wildcard $(SRCDIR)/tests/oracle/aci_oracle*.[ch])
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) $(BENCH_CFLAGS) -I$(SRCDIR)/bench \
		-DACRE_BENCH_EXAMPLES='"$(SRCDIR)/examples"' \
		-I$(SRCDIR)/tests/oracle -o $@ $(filter %.c,$^) $(B)/libacre.a \
		$(ALL_LDFLAGS) $(LIB_LIBS) $(BENCH_LIBS) $(JEMALLOC_LIBS)

# bench/results.json holds acre-bench's rows and the slapd_* rows of make
# bench-slapd-module: each target replaces its own rows only
# (bench/merge-results.sh), even when some checks failed.
bench: $(B)/acre-bench
	@rm -f $(B)/bench-rows.json
	$(B)/acre-bench --json $(B)/bench-rows.json; st=$$?; \
	if [ -f $(B)/bench-rows.json ]; then \
		sh $(SRCDIR)/bench/merge-results.sh $(SRCDIR)/bench/results.json \
			$(B)/bench-rows.json own-but slapd_ || st=2; fi; \
	exit $$st

bench-smoke: $(B)/acre-bench
	$(B)/acre-bench --smoke --json $(B)/bench-smoke.json

# The ratio gate (CI): every row of bench/floors.json -- acre against its
# comparison in the same run, ratios only, never absolute times -- must
# keep 80% of its floor; rows below are measured again twice before the
# gate fails.  Three repetitions per row: a few minutes on 2 cores.
bench-check: $(B)/acre-bench
	$(B)/acre-bench --reps 3 --floors $(SRCDIR)/bench/floors.json \
		--json $(B)/bench-check.json

# ---- fuzzing (libFuzzer, clang) --------------------------------------------
# Targets may compare with the reference evaluator (not its Criterion tests).
FUZZ_ORACLE := $(wildcard $(SRCDIR)/tests/oracle/openldap_oracle*.c \
	$(SRCDIR)/tests/oracle/collective_oracle.c \
	$(SRCDIR)/tests/oracle/collective_gen.c)
# The library, the oracle and the CLI parts are compiled once, with the
# fuzzer's coverage and the sanitizers, and each target links them.
FUZZ_CFLAGS = -std=gnu99 -D_GNU_SOURCE $(WARN) -g -O1 \
	-fno-sanitize-recover=undefined \
	-I$(SRCDIR)/include -I$(SRCDIR)/engine -I$(SRCDIR)/compiler \
	-I$(SRCDIR)/tests/oracle -I$(SRCDIR)/cli $(LIB_CFLAGS)
FUZZ_OBJ := $(patsubst $(SRCDIR)/%.c,$(B)/fuzzobj/%.o,$(LIB_SRC) $(FUZZ_ORACLE))
$(B)/fuzzobj/%.o: $(SRCDIR)/%.c $(LIB_HDR) config.mk \
		$(wildcard $(SRCDIR)/tests/oracle/*.h $(SRCDIR)/cli/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
		-c $< -o $@
.PRECIOUS: $(B)/fuzzobj/%.o
$(B)/fuzz/%: $(B)/fuzzobj/tests/fuzz/%.o $(FUZZ_OBJ)
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_OBJ) \
		$(patsubst $(SRCDIR)/%.c,$(B)/fuzzobj/%.o,$(FUZZ_CLI_$*)) \
		$(LIB_LIBS)

# The search command's option parsing, with what it shares with the others.
FUZZ_CLI_fuzz_search_args := $(SRCDIR)/cli/search_args.c $(SRCDIR)/cli/load.c \
	$(SRCDIR)/cli/ldif_out.c
$(B)/fuzz/fuzz_search_args: \
	$(patsubst $(SRCDIR)/%.c,$(B)/fuzzobj/%.o,$(FUZZ_CLI_fuzz_search_args))

fuzz: $(FUZZ_BIN)

fuzz-smoke: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
		n=$${f##*/fuzz_}; corpus=$(SRCDIR)/tests/fuzz/corpus/$$n; \
		work=$(B)/fuzz/work-$$n; rm -rf $$work; mkdir -p $$work; \
		echo "fuzz-smoke: $$n for $(FUZZ_SECONDS)s"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 $$work $$corpus \
			2>$(B)/fuzz/$$n.log || { tail -50 $(B)/fuzz/$$n.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units' $(B)/fuzz/$$n.log; \
	done

# ---- fuzz coverage (clang source-based) ----------------------------------------
# make fuzz-cov [FUZZ_TARGETS="dn ldif"]: each target built with coverage
# around tests/fuzz/cov_main.c (no libFuzzer, no sanitizer), run once over
# tests/fuzz/corpus/NAME, and the coverage of engine/ and compiler/
# summed up (full report: build/cov/NAME.txt; per line: llvm-cov show).
LLVM_PROFDATA ?= $(shell command -v llvm-profdata-14 || echo llvm-profdata)
LLVM_COV ?= $(shell command -v llvm-cov-14 || echo llvm-cov)
FUZZ_TARGETS ?= $(patsubst fuzz_%,%,$(notdir $(FUZZ_BIN)))
COV_BIN := $(patsubst %,$(B)/cov/fuzz_%,$(FUZZ_TARGETS))
$(B)/cov/%: $(SRCDIR)/tests/fuzz/%.c $(SRCDIR)/tests/fuzz/cov_main.c \
		$(LIB_SRC) $(LIB_HDR) $(FUZZ_ORACLE)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=gnu99 -D_GNU_SOURCE $(WARN) -g -O1 \
		-fprofile-instr-generate -fcoverage-mapping \
		-I$(SRCDIR)/include -I$(SRCDIR)/engine -I$(SRCDIR)/compiler \
		-I$(SRCDIR)/tests/oracle -I$(SRCDIR)/cli \
		$(LIB_CFLAGS) -o $@ $< $(SRCDIR)/tests/fuzz/cov_main.c $(LIB_SRC) \
		$(FUZZ_ORACLE) $(FUZZ_CLI_$*) $(LIB_LIBS)
$(B)/cov/fuzz_search_args: $(FUZZ_CLI_fuzz_search_args) \
	$(wildcard $(SRCDIR)/cli/*.h)

fuzz-cov: $(COV_BIN)
	@set -e; for f in $(COV_BIN); do \
		n=$${f##*/fuzz_}; raw=$(B)/cov/$$n.profraw; rm -f $$raw; \
		LLVM_PROFILE_FILE=$$raw $$f $(SRCDIR)/tests/fuzz/corpus/$$n \
			>/dev/null 2>$(B)/cov/$$n.log || \
			{ tail -20 $(B)/cov/$$n.log; exit 1; }; \
		$(LLVM_PROFDATA) merge -sparse -o $(B)/cov/$$n.profdata $$raw; \
		$(LLVM_COV) report $$f -instr-profile=$(B)/cov/$$n.profdata \
			$(SRCDIR)/engine $(SRCDIR)/compiler >$(B)/cov/$$n.txt; \
		ni=$$(sed -n 's/^cov_main: \([0-9]*\) inputs run/\1/p' \
			$(B)/cov/$$n.log); \
		awk -v n=$$n -v ni=$$ni '$$1 == "TOTAL" { \
			printf "fuzz-cov: %-14s %6s inputs  lines %6d/%-6d %7s" \
			"  regions %6d/%-6d %7s\n", n, ni, $$8 - $$9, $$8, \
			$$10, $$2 - $$3, $$2, $$4 }' $(B)/cov/$$n.txt; \
	done

# ---- install ----------------------------------------------------------------
DESTDIR ?=
MAN3 := $(wildcard $(SRCDIR)/doc/*.3)
MAN1 := $(wildcard $(SRCDIR)/doc/*.1)
MAN5 := $(wildcard $(SRCDIR)/doc/*.5)

install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(B)/libacre.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libacre.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libacre.so
	install -m 644 $(B)/libacre.a $(DESTDIR)$(LIBDIR)/
	install -m 644 $(SRCDIR)/include/acre.h $(DESTDIR)$(INCLUDEDIR)/
	$(PC_SED) $(SRCDIR)/acre.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/acre.pc
	install -m 755 $(B)/acre $(DESTDIR)$(PREFIX)/bin/
	$(if $(MAN1),install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN3),install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/)
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libacre.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libacre.so \
		$(DESTDIR)$(LIBDIR)/libacre.a $(DESTDIR)$(INCLUDEDIR)/acre.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/acre.pc $(DESTDIR)$(PREFIX)/bin/acre \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))

# Install into a scratch prefix, then build and run programs against the
# installed library through pkg-config, as a host would: installcheck.c,
# and the example host of acre(3) (tests/example.sh); then
# `make install PREFIX=/usr` into a staging DESTDIR (tests/installdirs.sh).
installcheck: all
	@rm -rf $(B)/inst
	@$(MAKE) --no-print-directory install PREFIX=$(CURDIR)/$(B)/inst \
		LIBDIR=$(CURDIR)/$(B)/inst/lib INCLUDEDIR=$(CURDIR)/$(B)/inst/include \
		MANDIR=$(CURDIR)/$(B)/inst/share/man >/dev/null
	@PKG_CONFIG_PATH=$(CURDIR)/$(B)/inst/lib/pkgconfig; \
	export PKG_CONFIG_PATH; \
	$(CC) -std=c99 -pedantic -Wall -Werror $(SAN) \
		$(SRCDIR)/tests/installcheck.c -o $(B)/installcheck \
		$$($(PKG_CONFIG) --cflags --libs acre) \
		-Wl,-rpath,$(CURDIR)/$(B)/inst/lib && \
	$(B)/installcheck && \
	echo "installcheck: pkg-config --cflags --libs acre: \
	$$($(PKG_CONFIG) --cflags --libs acre)" && \
	sh $(SRCDIR)/tests/example.sh $(SRCDIR)/doc/acre.3 $(B) \
		$(CC) -std=c99 -pedantic -Wall -Wextra -Werror $(SAN) && \
	sh $(SRCDIR)/tests/installdirs.sh "$(MAKE)" $(CURDIR)/$(B)/stage \
		"$(CONFIGURE_ARGS)"

# ---- housekeeping ---------------------------------------------------------------
FORMAT_SRC = $(wildcard $(SRCDIR)/include/*.h $(SRCDIR)/engine/*.[ch] \
	$(SRCDIR)/compiler/*.[ch] $(SRCDIR)/cli/*.[ch] $(SRCDIR)/tests/*.c \
	$(SRCDIR)/tests/unit/*.[ch] $(SRCDIR)/tests/fuzz/*.c $(SRCDIR)/bench/*.[ch] \
	$(SRCDIR)/tests/oracle/*.[ch] $(SRCDIR)/tests/oracle/tools/*.c \
	$(SRCDIR)/tests/differential/*.[ch] $(SRCDIR)/adapters/*/*.[ch])

format:
	clang-format -i $(FORMAT_SRC)

format-check:
	clang-format --dry-run -Werror $(FORMAT_SRC)

clean:
	rm -rf $(B)

distclean: clean
	rm -f config.mk

# Test suites that bring their own rules (the slapd differential tests).
-include $(wildcard $(SRCDIR)/tests/differential/*.mk)
# The golden tests of the acre command (make golden, golden-update).
-include $(wildcard $(SRCDIR)/tests/golden/*.mk)
# Server adapters (make openldap-module, check-openldap-module).
-include $(wildcard $(SRCDIR)/adapters/*/*.mk)
