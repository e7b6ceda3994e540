# golden.mk -- the golden tests of the acre command (tests/golden/),
# included by the top Makefile.  Targets:
#
#   make golden          run every case: each case directory's `cmd`
#                        through the acre command, its output diffed
#                        against `expected` (tests/golden/run.sh)
#   make golden-update   rewrite every `expected` from what the command
#                        prints now -- deliberately, reviewing the diff
#   GOLDEN="CASE..."     either target on those cases only
#
# The OpenLDAP conformance sets (tests/oracle/data/openldap-*, slapd
# 2.5.13's answers, tests/oracle/data/README.md) run as the cases
# NAME-initial and NAME-final (test006-initial, test037-manage-final,
# ...), each `sh tests/golden/conformance.sh SET WHICH`; their expected
# output is `NAME WHICH: N of N cases match slapd`.

GOLDEN_DIR := $(SRCDIR)/tests/golden
GOLDEN ?=

.PHONY: golden golden-update

golden: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh $(B)/acre $(SRCDIR) $(GOLDEN)

golden-update: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh --update $(B)/acre $(SRCDIR) $(GOLDEN)
