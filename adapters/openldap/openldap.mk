# openldap.mk -- slapo-acre, the slapd overlay module (adapters/openldap/),
# included by the top Makefile.  Nothing here is built by `make` or
# `make check`.  Targets:
#
#   make openldap-module (alias: make adapters)
#       fetch and configure the source of the installed slapd (once, in
#       build/openldap/src: fetch-src.sh), check that its headers are the
#       installed slapd's (abi-check.sh), then build
#       build/adapters/openldap/acre.so against them
#   make check-openldap-module
#       the module in a private slapd, checked with the ldap* clients
#       against stock slapd and an expected transcript
#       (adapters/openldap/tests/run.sh), then its policy replaced 100
#       times under load (tests/hotswap.sh)
#   make bench-slapd-module [BENCH_UNITS=2 BENCH_RULES="10 100"
#                            BENCH_MIXES=dn]
#       make bench-slapd with slapd + overlay acre measured too; a full
#       run replaces the slapd_* rows of bench/results.json
#   make check-openldap-suite [SUITE_TESTS="test006-acls ..."]
#       OpenLDAP's own access-control test scripts from the source
#       package, against the installed slapd and clients, each
#       configuration's rules moved into acre-policy with overlay acre
#       (adapters/openldap/suite/run-suite.sh)
#
# Linking: libacre's static PIC archive (build/libacre.a) is linked into
# acre.so and everything but init_module is made local (acre.so.map).
# slapd loads modules with RTLD_GLOBAL: a module exporting acre_* (or
# linking the shared libacre) would offer them to every later module and
# could meet another copy of libacre; hidden, the module is self-contained
# and needs no libacre installed.  talloc, PCRE2 and libunistring stay
# shared libraries (LIB_LIBS); slapd's own symbols are resolved when slapd
# loads the module.

OL_DIR := $(SRCDIR)/adapters/openldap
OL_SRC := $(B)/openldap/src
OL_B := $(B)/adapters/openldap
# The source tree's configured headers, and Debian's own build flags.
OL_CFLAGS := -std=gnu99 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra \
	-Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers -Wno-missing-braces \
	-Wno-format-truncation \
	-Werror=implicit-function-declaration -Werror=incompatible-pointer-types \
	-fPIC -fvisibility=hidden $(CFLAGS) -I$(OL_SRC)/include \
	-I$(OL_SRC)/servers/slapd -I$(SRCDIR)/include

.PHONY: adapters openldap-module openldap-src check-openldap-module \
	differential-openldap-module check-openldap-suite bench-slapd-module

adapters: openldap-module
openldap-module: $(OL_B)/acre.so

# Again when slapd is upgraded (fetch-src.sh then fetches the new version).
$(OL_SRC)/include/ldap_config.h: $(wildcard /usr/sbin/slapd)
	sh $(OL_DIR)/fetch-src.sh $(B)/openldap
	@touch $@

openldap-src: $(OL_SRC)/include/ldap_config.h

# The headers must describe the installed slapd (abi-check.sh): checked
# once per configured tree.
$(OL_B)/abi.ok: $(OL_SRC)/include/ldap_config.h $(OL_DIR)/abi-check.sh \
		$(wildcard /usr/sbin/slapd)
	sh $(OL_DIR)/abi-check.sh $(OL_SRC) $(OL_B)

$(OL_B)/acre_overlay.o: $(OL_DIR)/acre_overlay.c $(SRCDIR)/include/acre.h \
		$(OL_SRC)/include/ldap_config.h $(OL_B)/abi.ok
	@mkdir -p $(@D)
	$(CC) $(OL_CFLAGS) -c $< -o $@

$(OL_B)/acre.so: $(OL_B)/acre_overlay.o $(B)/libacre.a $(OL_DIR)/acre.so.map
	$(CC) -shared -o $@ $(OL_B)/acre_overlay.o $(B)/libacre.a \
		-Wl,--version-script=$(OL_DIR)/acre.so.map $(LDFLAGS) $(LIB_LIBS) \
		-l:liblber-2.5.so.0
	@bad=$$(nm -D --defined-only $@ | awk '{print $$3}' | \
		grep -v '^init_module$$' || true); \
	if [ -n "$$bad" ]; then echo "acre.so exports more than init_module:" \
		"$$bad"; rm -f $@; exit 1; fi

check-openldap-module: $(OL_B)/acre.so
	bash $(OL_DIR)/tests/run.sh $(OL_B)/acre.so $(OL_B)/check
	bash $(OL_DIR)/tests/hotswap.sh $(OL_B)/acre.so $(OL_B)/hotswap

check-openldap-suite: $(OL_B)/acre.so
	bash $(OL_DIR)/suite/run-suite.sh $(OL_B)/acre.so $(B)/openldap \
		$(SUITE_TESTS)

# The differential access-control suite (tests/differential/acl.sh) in
# module mode: each case through stock slapd with its rules as slapd's own
# and through slapd with slapo-acre deciding on the same rules; every
# answer must be identical.  OpenLDAP's test006 first, then generated
# cases from SEED until N searches (default 300).
differential-openldap-module: $(B)/differential/acl_driver $(OL_B)/acre.so
	ACL_ACRE_MODULE=$(abspath $(OL_B)/acre.so) bash \
		$(SRCDIR)/tests/differential/acl.sh $(B)/differential/acl_driver \
		$(B)/differential/acl-module '$(SEED)' '$(N)'

# make bench-slapd with a third measure: slapd with overlay acre on the
# same rules (tests/differential/bench_slapd.sh).  A full run (about 10
# minutes) replaces the slapd_* rows of bench/results.json.  BENCH_UNITS=2
# (200 entries), BENCH_RULES="10 100" and BENCH_MIXES=dn make a quick try
# (bench/results.json left alone); the defaults are the benchmark's
# 10,000 entries, 10, 100, 1,000 and 10,000 rules, mixes dn and regex10.
bench-slapd-module: $(B)/differential/acl_driver $(OL_B)/acre.so
	ACL_ACRE_MODULE=$(abspath $(OL_B)/acre.so) \
		$(if $(BENCH_UNITS),ACRE_BENCH_UNITS=$(BENCH_UNITS)) \
		$(if $(BENCH_MIXES),ACRE_BENCH_MIXES="$(BENCH_MIXES)") \
		bash $(SRCDIR)/tests/differential/bench_slapd.sh \
		$(B)/differential/acl_driver $(B)/differential/bench-slapd-module \
		--results $(SRCDIR)/bench/results.json $(BENCH_RULES)
