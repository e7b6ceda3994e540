# golden.mk -- the golden tests of the acre command (tests/golden/),
# included by the top Makefile.  Targets:
#
#   make golden          run every case: each case directory's `cmd`
#                        through the acre command, its output diffed
#                        against `expected` (tests/golden/run.sh); the
#                        OpenLDAP test006 conformance cases run as the
#                        cases test006-initial and test006-final
#   make golden-update   rewrite every `expected` from what the command
#                        prints now -- deliberately, reviewing the diff
#   GOLDEN="CASE..."     either target on those cases only

GOLDEN_DIR := $(SRCDIR)/tests/golden
GOLDEN ?=

.PHONY: golden golden-update

golden: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh $(B)/acre $(SRCDIR) $(GOLDEN)

golden-update: $(B)/acre
	sh $(GOLDEN_DIR)/run.sh --update $(B)/acre $(SRCDIR) $(GOLDEN)
