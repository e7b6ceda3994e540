# collect.mk -- the slapo-collect differential suite, included by the top
# Makefile with the other suites of tests/differential.
#
#   make differential-collect [SEED=n] [N=cases]
#       collected attributes, acre against a private slapd with the
#       collect overlay (see tests/differential/collect.sh); artefacts in
#       build/differential/collect/seed-*
#
# Nothing here is built by `make` or `make check`.

.PHONY: differential-collect

$(B)/differential/collect_driver: $(SRCDIR)/tests/differential/collect_driver.c \
		$(B)/libacre.a $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LIB_CFLAGS) -o $@ $< $(B)/libacre.a \
		$(ALL_LDFLAGS) $(LIB_LIBS)

differential-collect: $(B)/differential/collect_driver
	bash $(SRCDIR)/tests/differential/collect.sh \
		$(B)/differential/collect_driver $(B)/differential/collect \
		'$(SEED)' '$(N)'
