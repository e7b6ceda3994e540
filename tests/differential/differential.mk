# differential.mk -- the slapd differential suites (tests/differential/),
# included by the top Makefile.  Targets:
#
#   make differential-filter [SEED=n] [N=filters]
#       search-filter evaluation, acre against a private slapd (see
#       tests/differential/filter.sh); artefacts in
#       build/differential/filter/seed-SEED
#   make differential-filter-cases
#       the same comparison on fixed cases: the filters of
#       tests/differential/cases/filter.filters on cases/filter.ldif
#
#   make differential [SEED=n] [N=searches]
#       access control, acre against a private slapd: OpenLDAP's test006
#       as fixed cases, then generated cases until N searches (default
#       300) have been compared (see tests/differential/acl.sh); artefacts
#       in build/differential/acl
#   make differential-cli [SEED=n] [N=cases]
#       the output of `acre search` against `ldapsearch -LLL`, byte for
#       byte, on N (default 10) generated access-control cases, each
#       through a private slapd (tests/differential/cli.sh); artefacts in
#       build/differential/cli/seed-SEED
#   make differential-slapacl [SEED=n] [N=cases]
#       `acre explain --format slapacl` against slapacl(8) on N (default
#       8) generated access-control cases, slapadded into private
#       databases, a sample of entries as every requester
#       (tests/differential/slapacl.sh); artefacts in
#       build/differential/slapacl/seed-SEED
#   make differential-mutate [SEED=n] [N=cases]
#       the generated access rules damaged at random (acl_mutate.h),
#       each configuration given to slaptest -u and to acre compile: both
#       must load it or both refuse it (tests/differential/mutate.sh);
#       artefacts in build/differential/mutate/seed-SEED
#   make differential-mutate-data [SEED=n] [N=cases]
#       the same with the generated entries damaged, each database's
#       given to slapadd and the whole to acre search: both must load
#       them or both refuse them, and what both load must be the same
#       entries (slapcat against acre as the rootdn); artefacts in
#       build/differential/mutate/data-seed-SEED
#   make differential-unchecked [SEED=n] [N=cases]
#       size.unchecked: the exit status of `acre search` against
#       ldapsearch's on generated back-mdb indexes, entries and filters,
#       as requesters with limits 1 to 14 (tests/differential/
#       unchecked.sh); artefacts in build/differential/unchecked
#   make bench-slapd [BENCH_UNITS=2 BENCH_RULES="10 100" BENCH_MIXES=dn]
#       the CPU slapd spends per returned entry of a 10,000-entry subtree
#       search as a user with no access control and under 10 to 10,000
#       rules of two mixes, next to acre's, same run
#       (tests/differential/bench_slapd.sh; with the overlay: make
#       bench-slapd-module)
#
#   make differential-389 [SEED=n] [N=searches]
#       the `aci` dialect, acre against a private 389-DS (see
#       tests/differential/aci.sh): generated cases until N searches
#       (default 300) have been compared; artefacts in
#       build/differential/aci-389/seed-SEED
#   make differential-389-ger [SEED=n] [N=pairs]
#       389's get-effective-rights against acre explain --format ger
#       (ger.sh), artefacts in build/differential/aci-389-ger/seed-SEED
#   make differential-389-ger-replay [DIR=dir]
#       acre against recorded get-effective-rights cases (default
#       tests/differential/ger-suite: whole cases of past runs with what
#       389-DS 2.3.1 answered), no 389 needed
#   make differential-389-record [SEED=n] [N=searches] [OUT=dir]
#       389's side alone, each case written to OUT (default
#       build/differential/aci-389-record) for a later replay
#   make differential-389-replay [DIR=dir]
#       acre against recorded cases (default tests/differential/aci-cases),
#       no 389 needed; the cases DIR/HELD names are skipped
#   make differential-389-suite
#       the same on tests/differential/aci-suite: 389's own dirsrvtests
#       ACL scenarios, recorded on 389-DS 2.3.1 (its README)
#
# The drivers need the directory and filter modules of build/libacre.a;
# nothing here is built by `make`; `make check` builds aci_driver to
# replay the recorded 389 answers (differential-389-replay,
# differential-389-suite and differential-389-ger-replay, no 389 needed).

DT_DIR := $(SRCDIR)/tests/differential
DT_COMMON_SRC := $(wildcard $(DT_DIR)/dt_*.c)
DT_HDR := $(wildcard $(DT_DIR)/*.h)
DT_FILTER_SRC := $(DT_COMMON_SRC) $(wildcard $(DT_DIR)/filter_*.c)

.PHONY: differential-filter differential-filter-cases differential-check-lib \
	differential bench-slapd differential-389 differential-389-record \
	differential-389-replay differential-389-suite differential-389-ger \
	differential-389-ger-replay differential-cli \
	differential-slapacl differential-mutate differential-mutate-data \
	differential-unchecked

$(B)/differential/filter_driver: $(DT_FILTER_SRC) $(DT_HDR) $(B)/libacre.a \
		$(LIB_HDR) | differential-check-lib
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -I$(DT_DIR) -o $@ $(DT_FILTER_SRC) \
		$(B)/libacre.a $(ALL_LDFLAGS) $(LIB_LIBS)

differential-check-lib: $(B)/libacre.a
	@nm $(B)/libacre.a 2>/dev/null | grep -q ' T acreF_eval$$' && \
	nm $(B)/libacre.a 2>/dev/null | grep -q ' T acreE_dir_load_ldif$$' || \
	{ echo "differential: build/libacre.a lacks the filter or directory" \
		"module (acreF_eval, acreE_dir_load_ldif)"; exit 1; }

differential-filter: $(B)/differential/filter_driver
	bash $(DT_DIR)/filter.sh $(B)/differential/filter_driver \
		$(B)/differential/filter '$(SEED)' '$(N)'

differential-filter-cases: $(B)/differential/filter_driver
	DT_CASES=$(DT_DIR)/cases/filter bash $(DT_DIR)/filter.sh \
		$(B)/differential/filter_driver $(B)/differential/filter-cases

# ---- access control ------------------------------------------------------
DT_ACL_SRC := $(DT_COMMON_SRC) $(wildcard $(DT_DIR)/acl_*.c) \
	$(SRCDIR)/tests/oracle/openldap_gen.c $(SRCDIR)/cli/dn_slapd.c \
	$(SRCDIR)/bench/slapd_case.c
DT_LDAP_LIBS := -lldap -llber

$(B)/differential/acl_driver: $(DT_ACL_SRC) $(DT_HDR) $(B)/libacre.a \
		$(LIB_HDR) $(SRCDIR)/tests/oracle/openldap_gen.h \
		$(SRCDIR)/cli/ldif_out.h $(SRCDIR)/bench/slapd_case.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -I$(DT_DIR) -I$(SRCDIR)/tests/oracle \
		-I$(SRCDIR)/cli -I$(SRCDIR)/bench -o $@ $(DT_ACL_SRC) $(B)/libacre.a $(ALL_LDFLAGS) $(LIB_LIBS) \
		$(DT_LDAP_LIBS)

differential: $(B)/differential/acl_driver
	bash $(DT_DIR)/acl.sh $(B)/differential/acl_driver \
		$(B)/differential/acl '$(SEED)' '$(N)'

# `acre search` against `ldapsearch -LLL`, byte for byte, on the same
# generated cases (N cases, not searches).
differential-cli: $(B)/differential/acl_driver $(B)/acre
	bash $(DT_DIR)/cli.sh $(B)/differential/acl_driver $(B)/acre \
		$(B)/differential/cli '$(SEED)' '$(N)'

# `acre explain --format slapacl` against slapacl(8) on the same generated
# cases (N cases; no slapd runs).
differential-slapacl: $(B)/differential/acl_driver $(B)/acre
	bash $(DT_DIR)/slapacl.sh $(B)/differential/acl_driver $(B)/acre \
		$(B)/differential/slapacl '$(SEED)' '$(N)'

# size.unchecked: acre search against ldapsearch (N cases).
differential-unchecked: $(B)/acre
	bash $(DT_DIR)/unchecked.sh $(B)/acre $(B)/differential/unchecked \
		'$(SEED)' '$(N)'

# slaptest against acre compile on damaged rules (N cases).
differential-mutate: $(B)/differential/acl_driver $(B)/acre
	bash $(DT_DIR)/mutate.sh $(B)/differential/acl_driver $(B)/acre \
		$(B)/differential/mutate '$(SEED)' '$(N)'

# slapadd against acre's loader on damaged entries (N cases).
differential-mutate-data: $(B)/differential/acl_driver $(B)/acre
	bash $(DT_DIR)/mutate.sh $(B)/differential/acl_driver $(B)/acre \
		$(B)/differential/mutate '$(SEED)' '$(N)' data

bench-slapd: $(B)/differential/acl_driver
	$(if $(BENCH_UNITS),ACRE_BENCH_UNITS=$(BENCH_UNITS)) \
		$(if $(BENCH_MIXES),ACRE_BENCH_MIXES="$(BENCH_MIXES)") \
		bash $(DT_DIR)/bench_slapd.sh $(B)/differential/acl_driver \
		$(B)/differential/bench-slapd $(BENCH_RULES)

# ---- the aci dialect against 389-DS ------------------------------------------
# The driver generates and compares; acre's side is the CLI itself.
DT_ACI_SRC := $(DT_DIR)/dt_util.c $(DT_DIR)/dt_results.c \
	$(wildcard $(DT_DIR)/aci_*.c)

$(B)/differential/aci_driver: $(DT_ACI_SRC) $(DT_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(DT_DIR) -o $@ $(DT_ACI_SRC) $(ALL_LDFLAGS)

differential-389: $(B)/differential/aci_driver $(B)/acre
	bash $(DT_DIR)/aci.sh run $(B)/differential/aci_driver $(B)/acre \
		$(B)/differential/aci-389 '$(SEED)' '$(N)'

differential-389-ger: $(B)/differential/aci_driver $(B)/acre
	bash $(DT_DIR)/ger.sh run $(B)/differential/aci_driver $(B)/acre \
		$(B)/differential/aci-389-ger '$(SEED)' '$(N)'

differential-389-ger-replay: $(B)/differential/aci_driver $(B)/acre
	bash $(DT_DIR)/ger.sh replay $(B)/differential/aci_driver $(B)/acre \
		'$(or $(DIR),$(DT_DIR)/ger-suite)' $(B)/differential/aci-389-ger-replay

differential-389-record: $(B)/differential/aci_driver
	bash $(DT_DIR)/aci.sh record $(B)/differential/aci_driver \
		'$(or $(OUT),$(B)/differential/aci-389-record)' '$(SEED)' '$(N)'

differential-389-replay: $(B)/differential/aci_driver $(B)/acre
	bash $(DT_DIR)/aci.sh replay $(B)/differential/aci_driver $(B)/acre \
		'$(or $(DIR),$(DT_DIR)/aci-cases)' $(B)/differential/aci-389-replay

differential-389-suite: $(B)/differential/aci_driver $(B)/acre
	bash $(DT_DIR)/aci.sh replay $(B)/differential/aci_driver $(B)/acre \
		$(DT_DIR)/aci-suite $(B)/differential/aci-389-suite
