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
# The driver needs the directory and filter modules of build/libacre.a;
# nothing here is built by `make` or `make check`.

DT_DIR := $(SRCDIR)/tests/differential
DT_COMMON_SRC := $(wildcard $(DT_DIR)/dt_*.c)
DT_HDR := $(wildcard $(DT_DIR)/*.h)
DT_FILTER_SRC := $(DT_COMMON_SRC) $(wildcard $(DT_DIR)/filter_*.c)

.PHONY: differential-filter differential-filter-cases differential-check-lib

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
