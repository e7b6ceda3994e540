# golden.mk -- the golden tests of the acre command (tests/golden/),
# included by the top Makefile.  Targets:
#
#   make golden          run every case: each case directory's `cmd`
#                        through the acre command, its output diffed
#                        against `expected` (tests/golden/run.sh)
#   make golden-update   rewrite every `expected` from what the command
#                        prints now -- deliberately, reviewing the diff
#   GOLDEN="CASE..."     either target on those cases only
#   make conformance-held
#                        the OpenLDAP conformance sets and states held
#                        back from make check (CONFORMANCE_HELD); fails
#                        while any case differs from slapd
#
# The OpenLDAP conformance sets (tests/oracle/data/openldap-*, slapd
# 2.5.13's answers, tests/oracle/data/README.md) run as the cases
# NAME-initial and NAME-final (test006-initial, test037-manage-final,
# ...), each `sh tests/golden/conformance.sh SET WHICH`; their expected
# output is `NAME WHICH: N of N cases match slapd`.  Each runs again as
# NAME-WHICH-cnconfig with the set's configuration in cn=config form
# (`conformance.sh --cnconfig`, the set's config.ldif).  A set whose case
# directory is missing is not run by make check: those are listed in
# CONFORMANCE_HELD, with the reason in tests/oracle/data/README.md.

GOLDEN_DIR := $(SRCDIR)/tests/golden
GOLDEN ?=

# SET:WHICH pairs known to differ from slapd, held out of make check
# (the reason in tests/oracle/data/README.md); SET:WHICH:cnconfig, the
# same in cn=config form.
CONFORMANCE_HELD :=

.PHONY: golden golden-update conformance-held

golden: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh $(B)/acre $(SRCDIR) $(GOLDEN)

golden-update: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh --update $(B)/acre $(SRCDIR) $(GOLDEN)

conformance-held: $(B)/acre
	@bin=$$(mktemp -d) && ln -s $(CURDIR)/$(B)/acre $$bin/acre && \
	src=$$(cd $(SRCDIR) && pwd) && rc=0 && \
	for p in $(CONFORMANCE_HELD); do \
		set -- $$(echo "$$p" | tr : ' '); \
		PATH=$$bin:$$PATH SRC=$$src LC_ALL=C \
			sh $(GOLDEN_DIR)/conformance.sh $${3:+--$$3} $$1 $$2 || rc=1; \
	done; rm -rf $$bin; exit $$rc
