/*
 * collective_oracle_test.c -- unit tests of the collective-attribute
 * reference evaluator (tests/oracle/collective_oracle.c): one small,
 * hand-written directory per rule of collective_oracle.h, with the
 * expected values worked out by hand, and a sanity test of the case
 * generator (collective_gen.c).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "collective_gen.h"
#include "collective_oracle.h"

static void *ctx;
static acre_directory *dir;
static acre_schema *schema; /* dir's */

static void
setup(void)
{
    ctx = talloc_new(NULL);
    dir = NULL;
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(collective_oracle, .init = setup, .fini = teardown);

/* Load ldif into a slapd-profile schema (with OpenDJ's definitions when
 * opendj is set). */
static void
load_with(const char *ldif, int opendj)
{
    acre_schema *s;
    acre_diag d = {0};

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, &d), 0);
    schema = s;
    if (opendj)
        cr_assert_eq(acre_schema_load_buffer(
                         s, "opendj.schema", acreG_coll_opendj_schema,
                         strlen(acreG_coll_opendj_schema), &d),
                     0, "%s", d.message);
    cr_assert_eq(
        acre_directory_load(ctx, s, "t.ldif", ldif, strlen(ldif), &dir, &d), 0,
        "line %u: %s", d.line, d.message);
}

static void
load(const char *ldif)
{
    load_with(ldif, 0);
}

static const acre_entry *
entry(const char *dn)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(ctx, schema, dn, strlen(dn), 0, &d, NULL), 0);
    const acre_entry *e = acre_directory_find(dir, d);
    cr_assert_not_null(e, "no entry %s", dn);
    return e;
}

/* The view of dn with slapo-collect settings. */
static struct acreR_coll *
view_ci(const char *dn, unsigned flags, const struct acreR_collectinfo *ci,
        unsigned nci)
{
    struct acreR_coll *c = NULL;
    int rc = acreR_coll_entry(ctx, dir, entry(dn), flags, ci, nci, &c);

    cr_assert_eq(rc, 0, "%s: rc %d", dn, rc);
    return c;
}

static struct acreR_coll *
view(const char *dn, unsigned flags)
{
    return view_ci(dn, flags, NULL, 0);
}

/* The values c gives `type`, joined by "|" ("" when none); a trailing
 * "!" when they replace the entry's own. */
static const char *
vals(const struct acreR_coll *c, const char *type)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned k = 0; k < c->nattrs; k++) {
        if (strcmp(c->attrs[k].type, type))
            continue;
        for (unsigned j = 0; j < c->attrs[k].nvals; j++)
            t = talloc_asprintf_append(t, "%s%s", j ? "|" : "",
                                       c->attrs[k].vals[j]);
        if (c->attrs[k].replaces_real)
            t = talloc_strdup_append(t, "!");
    }
    return t;
}

/* All of c as "type=v|v;type=v" in c's order. */
static const char *
all(const struct acreR_coll *c)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned k = 0; k < c->nattrs; k++)
        t = talloc_asprintf_append(t, "%s%s=%s", k ? ";" : "", c->attrs[k].type,
                                   vals(c, c->attrs[k].type));
    return t;
}

/* The subentry DNs of c, joined by "|". */
static const char *
subs(const struct acreR_coll *c)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned k = 0; k < c->nsub; k++)
        t = talloc_asprintf_append(t, "%s%s", k ? "|" : "", c->subentries[k]);
    return t;
}

/*
 * The fixtures are LDIF text, one line per source line; the suffix dc=x
 * is a collective specific point unless a test says otherwise.
 */
/* clang-format off */
#define SUFFIX_PLAIN \
    "dn: dc=x\n" \
    "objectClass: dcObject\n" \
    "objectClass: organization\n" \
    "dc: x\n" \
    "o: X\n"
#define SUFFIX SUFFIX_PLAIN \
    "administrativeRole: collectiveAttributeSpecificArea\n"
/* clang-format on */

/* ------------------------------------------------------------------------
 * Reach: base, depth, chops
 */

/* dc=x (specific) > ou=a > ou=b > { cn=p, ou=c > cn=q }; dc=x > ou=d */
/* clang-format off */
static const char tree[] =
    SUFFIX
    "\ndn: ou=a,dc=x\nobjectClass: organizationalUnit\nou: a\n"
    "\ndn: ou=b,ou=a,dc=x\nobjectClass: organizationalUnit\nou: b\n"
    "\ndn: cn=p,ou=b,ou=a,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
    "\ndn: ou=c,ou=b,ou=a,dc=x\nobjectClass: organizationalUnit\nou: c\n"
    "\ndn: cn=q,ou=c,ou=b,ou=a,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    "\ndn: ou=d,dc=x\nobjectClass: organizationalUnit\nou: d\n";

/* A collective subentry cn=s,dc=x with c-l: L and the spec %s. */
static const char one_subentry[] =
    "\ndn: cn=s,dc=x\n"
    "objectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\n"
    "cn: s\n"
    "subtreeSpecification: %s\n"
    "c-l: L\n";

/* clang-format on */

static void
one_sub(const char *spec)
{
    load(talloc_asprintf(ctx, "%s%s", tree,
                         talloc_asprintf(ctx, one_subentry, spec)));
}

/* Which entries of the tree the subentry reaches, as a string. */
static const char *
reached(void)
{
    static const char *const dns[] = {"dc=x",
                                      "ou=a,dc=x",
                                      "ou=b,ou=a,dc=x",
                                      "cn=p,ou=b,ou=a,dc=x",
                                      "ou=c,ou=b,ou=a,dc=x",
                                      "cn=q,ou=c,ou=b,ou=a,dc=x",
                                      "ou=d,dc=x"};
    static const char *const names[] = {"x", "a", "b", "p", "c", "q", "d"};
    char *t = talloc_strdup(ctx, "");
    const acre_entry *s = entry("cn=s,dc=x");

    for (unsigned k = 0; k < 7; k++) {
        struct acreR_coll *c = view(dns[k], 0);
        int in = acreR_coll_in_reach(dir, s, entry(dns[k]), 0);
        cr_assert_eq(in, c->nsub == 1, "%s: in_reach %d, listed %u", dns[k], in,
                     c->nsub);
        cr_assert_str_eq(vals(c, "c-l"), in ? "L" : "");
        if (in)
            t = talloc_strdup_append(t, names[k]);
    }
    return t;
}

Test(collective_oracle, empty_spec_is_the_whole_area)
{
    one_sub("{}");
    cr_assert_str_eq(reached(), "xabpcqd");
}

Test(collective_oracle, base_below_the_point)
{
    one_sub("{ base \"ou=b,ou=a\" }");
    cr_assert_str_eq(reached(), "bpcq");
    one_sub("{ base \"ou=nowhere\" }");
    cr_assert_str_eq(reached(), "");
}

Test(collective_oracle, minimum_maximum_count_from_the_base)
{
    one_sub("{ base \"ou=a\", minimum 1, maximum 2 }");
    cr_assert_str_eq(reached(), "bpc"); /* a is 0, b 1, p and c 2, q 3 */
    one_sub("{ minimum 3 }");
    cr_assert_str_eq(reached(), "pcq");
    one_sub("{ maximum 0 }");
    cr_assert_str_eq(reached(), "x");
    one_sub("{ minimum 2, maximum 1 }");
    cr_assert_str_eq(reached(), "");
}

Test(collective_oracle, chop_before_removes_the_entry_and_below)
{
    one_sub("{ specificExclusions { chopBefore:\"ou=b,ou=a\" } }");
    cr_assert_str_eq(reached(), "xad");
}

Test(collective_oracle, chop_after_keeps_the_entry)
{
    one_sub("{ specificExclusions { chopAfter:\"ou=b,ou=a\" } }");
    cr_assert_str_eq(reached(), "xabd");
}

Test(collective_oracle, chops_are_relative_to_the_base)
{
    one_sub("{ base \"ou=a\", specificExclusions { chopBefore:\"ou=c,ou=b\", "
            "chopAfter:\"ou=a\" } }");
    /* ou=a,ou=a,dc=x does not exist: that chop removes nothing */
    cr_assert_str_eq(reached(), "abp");
}

Test(collective_oracle, unparsable_spec_reaches_nothing)
{
    one_sub("{ base \"ou=a\" minimum 1 }"); /* no comma */
    cr_assert_str_eq(reached(), "");
    one_sub("{ base \"not a dn\" }");
    cr_assert_str_eq(reached(), "");
    one_sub("{ specificExclusions { chopAfter:\"=x\" } }");
    cr_assert_str_eq(reached(), "");
    one_sub("{ specificationFilter \"(cn=\" }");
    cr_assert_str_eq(reached(), "");
}

/* ------------------------------------------------------------------------
 * Refinements
 */

/* clang-format off */
static const char people[] =
    SUFFIX
    "\ndn: cn=full,dc=x\nobjectClass: inetOrgPerson\ncn: full\nsn: f\n"
    "l: Paris\n"
    "\ndn: cn=plain,dc=x\nobjectClass: person\ncn: plain\nsn: p\n"
    "\ndn: cn=dev,dc=x\nobjectClass: device\ncn: dev\nl: Oslo\n";

/* clang-format on */

/* Which of full (F), plain (P), dev (D) and dc=x (X) a subentry with
 * this refinement reaches. */
static const char *
refined(const char *refinement)
{
    char *spec = talloc_asprintf(ctx, "{ specificationFilter %s }", refinement);
    char *r = talloc_strdup(ctx, "");

    load(talloc_asprintf(ctx, "%s%s", people,
                         talloc_asprintf(ctx, one_subentry, spec)));
    if (*vals(view("cn=full,dc=x", 0), "c-l"))
        r = talloc_strdup_append(r, "F");
    if (*vals(view("cn=plain,dc=x", 0), "c-l"))
        r = talloc_strdup_append(r, "P");
    if (*vals(view("cn=dev,dc=x", 0), "c-l"))
        r = talloc_strdup_append(r, "D");
    if (*vals(view("dc=x", 0), "c-l"))
        r = talloc_strdup_append(r, "X");
    return r;
}

Test(collective_oracle, item_follows_the_superclass_chain)
{
    /* cn=full lists only inetOrgPerson: it is a person all the same */
    cr_assert_str_eq(refined("item:person"), "FP");
    cr_assert_str_eq(refined("item:2.5.6.6"), "FP");
    cr_assert_str_eq(refined("item:inetOrgPerson"), "F");
    cr_assert_str_eq(refined("item:top"), "FPDX");
    cr_assert_str_eq(refined("item:noSuchClass"), "");
}

Test(collective_oracle, and_or_not)
{
    cr_assert_str_eq(refined("and:{ item:person, not:item:inetOrgPerson }"),
                     "P");
    cr_assert_str_eq(refined("or:{ item:device, item:inetOrgPerson }"), "FD");
    cr_assert_str_eq(refined("and:{}"), "FPDX");
    cr_assert_str_eq(refined("or:{}"), "");
    cr_assert_str_eq(refined("not:or:{}"), "FPDX");
}

Test(collective_oracle, filter_refinement_on_stored_attributes)
{
    cr_assert_str_eq(refined("\"(l=paris)\""), "F");
    cr_assert_str_eq(refined("\"(|(l=oslo)(objectClass=dcObject))\""), "DX");
    cr_assert_str_eq(refined("not:\"(l=*)\""), "PX");
    /* the refinement is two-valued: the filter's Undefined counts as
     * FALSE, and not: of it is TRUE */
    cr_assert_str_eq(refined("\"(noSuchAttr=x)\""), "");
    cr_assert_str_eq(refined("not:\"(noSuchAttr=x)\""), "FPDX");
    /* never on collective values: c-l is stored nowhere */
    cr_assert_str_eq(refined("\"(c-l=L)\""), "");
}

/* ------------------------------------------------------------------------
 * Areas: X.501 and the stacking option
 */

/*
 * dc=x specific [top]
 *   ou=a inner [ina] > cn=p1
 *   ou=b specific [inb] > cn=p2, ou=c inner [inc] > cn=p3
 *   ou=d no role [loose] > cn=p4
 * o=y inner [y] > cn=p5
 */
/* clang-format off */
#define CSUB(name, parent, value) \
    "\ndn: cn=" name "," parent "\n" \
    "objectClass: subentry\n" \
    "objectClass: collectiveAttributeSubentry\n" \
    "cn: " name "\n" \
    "subtreeSpecification: {}\n" \
    "c-l: " value "\n"

static const char areas[] =
    SUFFIX
    "\ndn: ou=a,dc=x\nobjectClass: organizationalUnit\nou: a\n"
    "administrativeRole: collectiveAttributeInnerArea\n"
    "\ndn: cn=p1,ou=a,dc=x\nobjectClass: person\ncn: p1\nsn: p\n"
    "\ndn: ou=b,dc=x\nobjectClass: organizationalUnit\nou: b\n"
    "administrativeRole: collectiveAttributeSpecificArea\n"
    "\ndn: cn=p2,ou=b,dc=x\nobjectClass: person\ncn: p2\nsn: p\n"
    "\ndn: ou=c,ou=b,dc=x\nobjectClass: organizationalUnit\nou: c\n"
    "administrativeRole: collectiveAttributeInnerArea\n"
    "\ndn: cn=p3,ou=c,ou=b,dc=x\nobjectClass: person\ncn: p3\nsn: p\n"
    "\ndn: ou=d,dc=x\nobjectClass: organizationalUnit\nou: d\n"
    "\ndn: cn=p4,ou=d,dc=x\nobjectClass: person\ncn: p4\nsn: p\n"
    "\ndn: o=y\nobjectClass: organization\no: y\n"
    "administrativeRole: collectiveAttributeInnerArea\n"
    "\ndn: cn=p5,o=y\nobjectClass: person\ncn: p5\nsn: p\n"
    CSUB("top", "dc=x", "Top")
    CSUB("ina", "ou=a,dc=x", "InA")
    CSUB("inb", "ou=b,dc=x", "InB")
    CSUB("inc", "ou=c,ou=b,dc=x", "InC")
    CSUB("loose", "ou=d,dc=x", "Loose")
    CSUB("y", "o=y", "Y");

/* clang-format on */

Test(collective_oracle, x501_nested_specific_ends_the_outer_area)
{
    load(areas);
    cr_assert_str_eq(vals(view("dc=x", 0), "c-l"), "Top");
    cr_assert_str_eq(vals(view("cn=p1,ou=a,dc=x", 0), "c-l"), "Top|InA");
    cr_assert_str_eq(vals(view("cn=p2,ou=b,dc=x", 0), "c-l"), "InB");
    cr_assert_str_eq(vals(view("cn=p3,ou=c,ou=b,dc=x", 0), "c-l"), "InB|InC");
    cr_assert_str_eq(subs(view("cn=p3,ou=c,ou=b,dc=x", 0)),
                     "cn=inb,ou=b,dc=x|cn=inc,ou=c,ou=b,dc=x");
    /* the points themselves are in their areas */
    cr_assert_str_eq(vals(view("ou=b,dc=x", 0), "c-l"), "InB");
    cr_assert_str_eq(vals(view("ou=c,ou=b,dc=x", 0), "c-l"), "InB|InC");
    /* a subentry below an entry that is no point applies nowhere */
    cr_assert_str_eq(vals(view("cn=p4,ou=d,dc=x", 0), "c-l"), "Top");
}

Test(collective_oracle, x501_inner_without_specific_is_void)
{
    load(areas);
    cr_assert_str_eq(all(view("cn=p5,o=y", 0)), "");
    cr_assert_eq(view("cn=p5,o=y", 0)->nsub, 0);
}

Test(collective_oracle, stack_applies_every_ancestor)
{
    const unsigned st = ACRER_COLL_STACK;

    load(areas);
    cr_assert_str_eq(vals(view("cn=p1,ou=a,dc=x", st), "c-l"), "Top|InA");
    cr_assert_str_eq(vals(view("cn=p2,ou=b,dc=x", st), "c-l"), "Top|InB");
    cr_assert_str_eq(vals(view("cn=p3,ou=c,ou=b,dc=x", st), "c-l"),
                     "Top|InB|InC");
    cr_assert_str_eq(vals(view("cn=p4,ou=d,dc=x", st), "c-l"), "Top|Loose");
    cr_assert_str_eq(vals(view("cn=p5,o=y", st), "c-l"), "Y");
}

/* clang-format off */
static const char role_forms[] =
    SUFFIX_PLAIN
    "administrativeRole: 2.5.23.1\n" /* autonomousArea */
    "\ndn: ou=a,dc=x\nobjectClass: organizationalUnit\nou: a\n"
    "administrativeRole: COLLECTIVEATTRIBUTEINNERAREA\n"
    "\ndn: cn=p,ou=a,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
    "\ndn: ou=b,dc=x\nobjectClass: organizationalUnit\nou: b\n"
    "administrativeRole: accessControlSpecificArea\n"
    "\ndn: cn=q,ou=b,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    CSUB("s", "dc=x", "S")
    CSUB("t", "ou=a,dc=x", "T")
    CSUB("u", "ou=b,dc=x", "U");

/* clang-format on */

Test(collective_oracle, role_names_and_oids)
{
    load(role_forms);
    cr_assert_str_eq(vals(view("cn=p,ou=a,dc=x", 0), "c-l"), "S|T");
    /* ou=b is a point of another aspect only: not a collective one */
    cr_assert_str_eq(vals(view("cn=q,ou=b,dc=x", 0), "c-l"), "S");
}

/* ------------------------------------------------------------------------
 * Subentries themselves
 */

Test(collective_oracle, subentries_are_never_in_reach)
{
    load(areas);
    struct acreR_coll *c = view("cn=inb,ou=b,dc=x", ACRER_COLL_STACK);

    cr_assert_eq(c->nattrs, 0);
    cr_assert_eq(c->nsub, 0);
    cr_assert_eq(acreR_coll_in_reach(dir, entry("cn=inb,ou=b,dc=x"),
                                     entry("cn=inb,ou=b,dc=x"), 0),
                 0);
    cr_assert_eq(acreR_coll_in_reach(dir, entry("cn=top,dc=x"),
                                     entry("cn=inb,ou=b,dc=x"),
                                     ACRER_COLL_STACK),
                 0);
    /* an ordinary entry is not a subentry: it reaches nothing */
    cr_assert_eq(acreR_coll_in_reach(dir, entry("ou=a,dc=x"),
                                     entry("cn=p1,ou=a,dc=x"), 0),
                 0);
}

/* clang-format off */
static const char kinds[] =
    SUFFIX
    "\ndn: cn=p,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
    "\ndn: cn=plain,dc=x\nobjectClass: subentry\ncn: plain\n"
    "subtreeSpecification: {}\n"
    "\ndn: cn=s,dc=x\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: s\n"
    "subtreeSpecification: {}\nc-ou: Unit\ndescription: not collective\n";

/* clang-format on */

Test(collective_oracle, only_collective_subentries_with_a_spec_give)
{
    load(kinds);
    struct acreR_coll *c = view("cn=p,dc=x", 0);

    /* cn=plain is not collective */
    cr_assert_str_eq(all(c), "c-ou=Unit");
    cr_assert_str_eq(subs(c), "cn=s,dc=x");
    cr_assert_str_eq(subs(view("cn=p,dc=x", ACRER_COLL_STACK)), "cn=s,dc=x");

    /* a subentry without a specification: slapadd refuses it */
    static const char nospec[] =
        SUFFIX "\ndn: cn=nospec,dc=x\nobjectClass: subentry\n"
               "objectClass: collectiveAttributeSubentry\ncn: nospec\n"
               "c-l: L\n";
    acre_directory *d2 = NULL;
    acre_diag d = {0};
    cr_expect_eq(acre_directory_load(ctx, schema, "t.ldif", nospec,
                                     strlen(nospec), &d2, &d),
                 ACRE_ERR_LDIF_VALUE);
    cr_expect_str_eq(d.message, "object class 'subentry' requires attribute "
                                "'subtreeSpecification'");
}

/* ------------------------------------------------------------------------
 * Unions and exclusions
 */

/* clang-format off */
static const char unions[] =
    SUFFIX
    "\ndn: cn=p,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
    "\ndn: cn=q,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    "collectiveExclusions: c-ou\n"
    "\ndn: cn=r,dc=x\nobjectClass: person\ncn: r\nsn: r\n"
    "collectiveExclusions: 2.5.4.20.1\n"
    "collectiveExclusions: c-st\n"
    "\ndn: cn=s,dc=x\nobjectClass: person\ncn: s\nsn: s\n"
    "collectiveExclusions: excludeAllCollectiveAttributes\n"
    "\ndn: cn=t,dc=x\nobjectClass: person\ncn: t\nsn: t\n"
    "collectiveExclusions: 2.5.18.0\n"
    "\ndn: cn=u,dc=x\nobjectClass: person\ncn: u\nsn: u\n"
    "collectiveExclusions: ou\n"
    "\ndn: cn=one,dc=x\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: one\n"
    "subtreeSpecification: {}\n"
    "c-ou: Sales  Dept\nc-ou: R&D\nc-TelephoneNumber: +1 555 0100\n"
    "\ndn: cn=two,dc=x\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: two\n"
    "subtreeSpecification: {}\n"
    "c-ou: sales dept\nc-ou: Legal\nc-TelephoneNumber: +15550100\n"
    "c-TelephoneNumber: +1 555 0199\nc-l: Paris\n";

/* clang-format on */

Test(collective_oracle, union_drops_equal_values)
{
    load(unions);
    struct acreR_coll *c = view("cn=p,dc=x", 0);

    /* sorted by type, case-insensitively; values in load order, the ones
     * equal under the equality rule dropped */
    cr_assert_str_eq(all(c), "c-l=Paris;c-ou=Sales  Dept|R&D|Legal;"
                             "c-TelephoneNumber=+1 555 0100|+1 555 0199");
    cr_assert_str_eq(subs(c), "cn=one,dc=x|cn=two,dc=x");
}

Test(collective_oracle, exclusion_of_one_type)
{
    load(unions);
    cr_assert_str_eq(all(view("cn=q,dc=x", 0)),
                     "c-l=Paris;c-TelephoneNumber=+1 555 0100|+1 555 0199");
    /* by OID; excluding a type nobody gives is harmless */
    cr_assert_str_eq(all(view("cn=r,dc=x", 0)),
                     "c-l=Paris;c-ou=Sales  Dept|R&D|Legal");
    /* exactly the type: excluding ou does not exclude c-ou */
    cr_assert_str_eq(vals(view("cn=u,dc=x", 0), "c-ou"),
                     "Sales  Dept|R&D|Legal");
}

Test(collective_oracle, exclusion_of_all)
{
    load(unions);
    struct acreR_coll *s = view("cn=s,dc=x", 0), *t = view("cn=t,dc=x", 0);

    cr_assert_eq(s->nattrs, 0);
    cr_assert_eq(t->nattrs, 0);
    /* collectiveAttributeSubentries is computed before exclusions */
    cr_assert_str_eq(subs(s), "cn=one,dc=x|cn=two,dc=x");
    cr_assert_str_eq(subs(t), "cn=one,dc=x|cn=two,dc=x");
}

Test(collective_oracle, options_are_kept_in_the_description)
{
    load(SUFFIX "\ndn: cn=p,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
                "\ndn: cn=s,dc=x\nobjectClass: subentry\n"
                "objectClass: collectiveAttributeSubentry\ncn: s\n"
                "subtreeSpecification: {}\n"
                "c-l;lang-fr: Paris\nc-l: Rome\n");
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "c-l=Rome;c-l;lang-fr=Paris");
}

/* ------------------------------------------------------------------------
 * OpenDJ: ;collective, conflicts, inheritance
 */

/* clang-format off */
#define PERSON_P "\ndn: cn=p,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
#define COLL_SUB(name) \
    "\ndn: cn=" name ",dc=x\n" \
    "objectClass: subentry\n" \
    "objectClass: collectiveAttributeSubentry\n" \
    "cn: " name "\n" \
    "subtreeSpecification: {}\n"

static const char option[] =
    SUFFIX PERSON_P
    COLL_SUB("s")
    "description;collective: shared\n"
    "description;lang-en;collective: english\n"
    "description: own\n"
    "c-ou;collective: Unit\n";

static const char conflicts[] =
    SUFFIX PERSON_P
    "description: mine\ntelephoneNumber: 1\n"
    "\ndn: cn=q,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    COLL_SUB("rov")
    "description;collective: from rov\n"
    "collectiveConflictBehavior: real-overrides-virtual\n"
    COLL_SUB("merge")
    "description;collective: MINE\ndescription;collective: merged\n"
    "telephoneNumber;collective: 1\ntelephoneNumber;collective: 2\n"
    "collectiveConflictBehavior: merge-real-and-virtual\n";

static const char overrides[] =
    SUFFIX PERSON_P
    "description: mine\n"
    COLL_SUB("merge")
    "description;collective: merged\ndescription;collective: mine\n"
    "collectiveConflictBehavior: merge-real-and-virtual\n"
    COLL_SUB("vor")
    "description;collective: forced\n"
    "collectiveConflictBehavior: virtual-overrides-real\n"
    COLL_SUB("rov")
    "description;collective: later\n";

static const char odd_case[] =
    SUFFIX PERSON_P
    "description: mine\n"
    COLL_SUB("s")
    "description;collective: forced\n"
    "collectiveConflictBehavior: Virtual-Overrides-Real\n";

/* clang-format on */

Test(collective_oracle, collective_option)
{
    load_with(option, 1);
    /* the option goes, the others stay; a COLLECTIVE type loses it too */
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "c-ou=Unit;description=shared;"
                                                "description;lang-en=english");
}

Test(collective_oracle, conflict_real_overrides_and_merge)
{
    load_with(conflicts, 1);
    /* rov adds nothing where p has a description; merge adds what p
     * does not have already */
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)),
                     "description=merged;telephoneNumber=2");
    /* q stores nothing: everything is a union */
    cr_assert_str_eq(all(view("cn=q,dc=x", 0)),
                     "description=from rov|MINE|merged;telephoneNumber=1|2");
}

Test(collective_oracle, conflict_virtual_overrides_real)
{
    load_with(overrides, 1);
    /* merge added "merged" (not "mine", stored); vor replaced p's own
     * values; once replaced, later subentries add whatever their
     * behaviour */
    cr_assert_str_eq(vals(view("cn=p,dc=x", 0), "description"),
                     "merged|forced|later!");
}

Test(collective_oracle, conflict_value_compared_exactly)
{
    load_with(odd_case, 1);
    /* not one of OpenDJ's exact strings: the default applies */
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "");
}

/*
 * dc=x specific
 *   ou=a specific [inh: from DN of manager, telephoneNumber, postalCode]
 *     cn=boss  telephoneNumber 7, postalCode 75001
 *     cn=p     manager cn=boss
 *     cn=q     manager cn=out (outside ou=a)
 *     cn=r     manager cn=ghost,ou=a (no entry)
 *     cn=t     telephoneNumber 1 (own), manager cn=boss
 *   cn=out     telephoneNumber 9
 */
/* clang-format off */
#define A_PERSON(name) \
    "\ndn: cn=" name ",ou=a,dc=x\nobjectClass: inetOrgPerson\n" \
    "cn: " name "\nsn: " name "\n"
#define BOSS "manager: cn=boss,ou=a,dc=x\n"

static const char from_dn[] =
    SUFFIX
    "\ndn: ou=a,dc=x\nobjectClass: organizationalUnit\nou: a\n"
    "administrativeRole: collectiveAttributeSpecificArea\n"
    A_PERSON("boss") "telephoneNumber: 7\npostalCode: 75001\n"
    A_PERSON("p") BOSS
    A_PERSON("q") "manager: cn=out,dc=x\n"
    A_PERSON("r") "manager: cn=ghost,ou=a,dc=x\n"
    A_PERSON("t") "telephoneNumber: 1\n" BOSS
    "\ndn: cn=out,dc=x\nobjectClass: person\ncn: out\nsn: o\n"
    "telephoneNumber: 9\n"
    "\ndn: cn=inh,ou=a,dc=x\nobjectClass: subentry\n"
    "objectClass: inheritedCollectiveAttributeSubentry\n"
    "objectClass: inheritedFromDNCollectiveAttributeSubentry\n"
    "cn: inh\nsubtreeSpecification: {}\n"
    "inheritFromDNAttribute: manager\n"
    "inheritAttribute: telephoneNumber\n"
    "inheritAttribute: postalCode\n"
    "inheritAttribute: noSuchType\n";

static const char own_replaced[] =
    SUFFIX
    "\ndn: cn=boss,dc=x\nobjectClass: person\ncn: boss\nsn: b\n"
    "l: Oslo\n"
    "\ndn: cn=p,dc=x\nobjectClass: inetOrgPerson\ncn: p\nsn: p\n"
    "manager: cn=boss,dc=x\n"
    "\ndn: cn=q,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    "\ndn: cn=inh,dc=x\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\n"
    "objectClass: inheritedCollectiveAttributeSubentry\n"
    "objectClass: inheritedFromDNCollectiveAttributeSubentry\n"
    "cn: inh\nsubtreeSpecification: {}\n"
    "inheritFromDNAttribute: manager\ninheritAttribute: l\n"
    "c-l: Own\n";

/* clang-format on */

Test(collective_oracle, inherit_from_dn)
{
    load_with(from_dn, 1);
    cr_assert_str_eq(all(view("cn=p,ou=a,dc=x", 0)),
                     "postalCode=75001;telephoneNumber=7");
    /* a manager outside the subentry's area: nothing */
    cr_assert_str_eq(all(view("cn=q,ou=a,dc=x", 0)), "");
    /* a manager that does not exist: nothing, but the subentry applies */
    cr_assert_str_eq(all(view("cn=r,ou=a,dc=x", 0)), "");
    cr_assert_str_eq(subs(view("cn=r,ou=a,dc=x", 0)), "cn=inh,ou=a,dc=x");
    /* t's own telephoneNumber wins (real-overrides-virtual) */
    cr_assert_str_eq(all(view("cn=t,ou=a,dc=x", 0)), "postalCode=75001");
    /* boss has no manager */
    cr_assert_str_eq(all(view("cn=boss,ou=a,dc=x", 0)), "");
}

Test(collective_oracle, inherited_subentry_replaces_its_own_values)
{
    load_with(own_replaced, 1);
    /* every contribution reads the inherit-from entry cn=boss: c-l is not
     * stored there, l is */
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "l=Oslo");
    cr_assert_str_eq(all(view("cn=q,dc=x", 0)), "");
}

/*
 * dc=x specific [inh: from RDN l -> l=<value>,ou=locations]
 *   ou=locations > l=Paris (postalCode 75001, street Rue)
 *   cn=p l: paris;  cn=q l: Rome (no such location);  cn=r no l
 */
/* clang-format off */
static const char from_rdn[] =
    SUFFIX
    "\ndn: ou=locations,dc=x\nobjectClass: organizationalUnit\n"
    "ou: locations\n"
    "\ndn: l=Paris,ou=locations,dc=x\nobjectClass: locality\nl: Paris\n"
    "postalCode: 75001\nstreet: Rue\n"
    "\ndn: cn=p,dc=x\nobjectClass: inetOrgPerson\ncn: p\nsn: p\n"
    "l: paris\n"
    "\ndn: cn=q,dc=x\nobjectClass: inetOrgPerson\ncn: q\nsn: q\nl: Rome\n"
    "\ndn: cn=r,dc=x\nobjectClass: inetOrgPerson\ncn: r\nsn: r\n"
    "\ndn: cn=inh,dc=x\nobjectClass: subentry\n"
    "objectClass: inheritedCollectiveAttributeSubentry\n"
    "objectClass: inheritedFromRDNCollectiveAttributeSubentry\n"
    "cn: inh\nsubtreeSpecification: {}\n"
    "inheritFromRDNAttribute: l\ninheritFromRDNType: l\n"
    "inheritFromBaseRDN: ou=locations\n"
    "inheritAttribute: postalCode\ninheritAttribute: street\n";

static const char no_opendj[] =
    SUFFIX PERSON_P
    "l: paris\n"
    "\ndn: cn=inh,dc=x\nobjectClass: subentry\ncn: inh\n"
    "subtreeSpecification: {}\n";

/* clang-format on */

Test(collective_oracle, inherit_from_rdn)
{
    load_with(from_rdn, 1);
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "postalCode=75001;street=Rue");
    cr_assert_str_eq(all(view("cn=q,dc=x", 0)), "");
    cr_assert_str_eq(all(view("cn=r,dc=x", 0)), "");
    /* the locality has an l: it inherits from itself, and its own values
     * win (real-overrides-virtual) */
    cr_assert_str_eq(all(view("l=Paris,ou=locations,dc=x", 0)), "");
    cr_assert_str_eq(subs(view("l=Paris,ou=locations,dc=x", 0)), "cn=inh,dc=x");
}

Test(collective_oracle, inheritance_absent_without_opendj_schema)
{
    /* without OpenDJ's classes a subentry like cn=inh is not collective */
    load(no_opendj);
    cr_assert_str_eq(all(view("cn=p,dc=x", 0)), "");
    cr_assert_eq(view("cn=p,dc=x", 0)->nsub, 0);
}

/* ------------------------------------------------------------------------
 * slapo-collect
 */

/* clang-format off */
static const char collect[] =
    SUFFIX_PLAIN
    "description: Top Desc\n"
    "\ndn: ou=a,dc=x\nobjectClass: organizationalUnit\nou: a\n"
    "description: Alpha  Desc\nl: Paris\ndescription;lang-en: English\n"
    "\ndn: cn=p,ou=a,dc=x\nobjectClass: person\ncn: p\nsn: p\n"
    "description: mine\n"
    "\ndn: cn=q,dc=x\nobjectClass: person\ncn: q\nsn: q\n"
    "collectiveExclusions: excludeAllCollectiveAttributes\n"
    "\ndn: cn=s,ou=a,dc=x\nobjectClass: subentry\ncn: s\n"
    "subtreeSpecification: {}\n";

static const char collect_and_subentry[] =
    SUFFIX
    "description: Top\n"
    PERSON_P
    "%s" /* an exclusion, or nothing */
    COLL_SUB("s")
    "description;collective: Shared\ndescription;collective: top\n";

/* clang-format on */

Test(collective_oracle, collect_below_the_entry_only)
{
    static const char *const d[] = {"description"};
    struct acreR_collectinfo ci = {"ou=a,dc=x", d, 1};

    load(collect);
    /* normalised values (slapd copies a_nvals), after the stored ones */
    cr_assert_str_eq(all(view_ci("cn=p,ou=a,dc=x", 0, &ci, 1)),
                     "description=alpha desc");
    cr_assert_str_eq(all(view_ci("ou=a,dc=x", 0, &ci, 1)), "");
    cr_assert_str_eq(all(view_ci("dc=x", 0, &ci, 1)), "");
    /* subentries below the DN too: slapd adds to every search entry */
    cr_assert_str_eq(all(view_ci("cn=s,ou=a,dc=x", 0, &ci, 1)),
                     "description=alpha desc");
}

Test(collective_oracle, collect_order_and_no_dedup)
{
    static const char *const a1[] = {"description", "l"};
    static const char *const a2[] = {"description"};
    struct acreR_collectinfo ci[] = {{"dc=x", a2, 1}, {"ou=a,dc=x", a1, 2}};

    load(collect);
    /* the longer DN first, whatever the order given; no deduplication */
    cr_assert_str_eq(all(view_ci("cn=p,ou=a,dc=x", 0, ci, 2)),
                     "description=alpha desc|top desc;l=paris");
    /* never excluded */
    cr_assert_str_eq(all(view_ci("cn=q,dc=x", 0, ci, 2)),
                     "description=top desc");
}

Test(collective_oracle, collect_exact_description)
{
    static const char *const a[] = {"description;lang-en", "sn"};
    struct acreR_collectinfo ci = {"ou=a,dc=x", a, 2};

    load(collect);
    /* only the stored description;lang-en; ou=a has no sn */
    cr_assert_str_eq(all(view_ci("cn=p,ou=a,dc=x", 0, &ci, 1)),
                     "description;lang-en=english");
}

Test(collective_oracle, collect_missing_entry_and_errors)
{
    static const char *const a[] = {"description"};
    static const char *const bad[] = {"noSuchType"};
    struct acreR_collectinfo ghost = {"ou=ghost,dc=x", a, 1};
    struct acreR_collectinfo twice[] = {{"ou=a,dc=x", a, 1},
                                        {"OU=A, DC=X", a, 1}};
    struct acreR_collectinfo unknown = {"ou=a,dc=x", bad, 1};
    struct acreR_collectinfo baddn = {"not a dn", a, 1};
    const acre_entry *p;
    struct acreR_coll *c = NULL;

    load(collect);
    p = entry("cn=p,ou=a,dc=x");
    cr_assert_str_eq(all(view_ci("cn=p,ou=a,dc=x", 0, &ghost, 1)), "");
    cr_assert_eq(acreR_coll_entry(ctx, dir, p, 0, twice, 2, &c),
                 ACRE_ERR_INVAL);
    cr_assert_eq(acreR_coll_entry(ctx, dir, p, 0, &unknown, 1, &c),
                 ACRE_ERR_INVAL);
    cr_assert_lt(acreR_coll_entry(ctx, dir, p, 0, &baddn, 1, &c), 0);
    cr_assert_null(c);
    cr_assert_eq(acreR_coll_entry(ctx, NULL, p, 0, NULL, 0, &c),
                 ACRE_ERR_INVAL);
}

Test(collective_oracle, collect_merges_with_subentry_values)
{
    static const char *const a[] = {"description"};
    struct acreR_collectinfo ci = {"dc=x", a, 1};
    struct acreR_coll *c;

    load_with(talloc_asprintf(ctx, collect_and_subentry,
                              "collectiveExclusions: description\n"),
              1);
    c = view_ci("cn=p,dc=x", 0, &ci, 1);
    /* the exclusion removes the subentry's description, never collect's */
    cr_assert_str_eq(all(c), "description=top");
    cr_assert_str_eq(subs(c), "cn=s,dc=x");
    load_with(talloc_asprintf(ctx, collect_and_subentry, ""), 1);
    /* subentry values first (union), then collect's (appended as is) */
    cr_assert_str_eq(all(view_ci("cn=p,dc=x", 0, &ci, 1)),
                     "description=Shared|top|top");
}

/* ------------------------------------------------------------------------
 * Text, arguments
 */

Test(collective_oracle, text_form)
{
    load(unions);
    char *t = acreR_coll_text(view("cn=p,dc=x", 0));

    cr_assert_not_null(t);
    cr_assert_str_eq(t, "c-l: Paris\nc-ou: Sales  Dept\nc-ou: R&D\n"
                        "c-ou: Legal\nc-TelephoneNumber: +1 555 0100\n"
                        "c-TelephoneNumber: +1 555 0199\n"
                        "subentry: cn=one,dc=x\nsubentry: cn=two,dc=x\n");
    free(t);
    struct acreR_coll_attr a = {"x", (const char *[]){"a\nb"}, (size_t[]){3}, 1,
                                1};
    struct acreR_coll c = {&a, 1, NULL, 0};
    t = acreR_coll_text(&c);
    cr_assert_str_eq(t, "x (replaces real): a\\0ab\n");
    free(t);
}

Test(collective_oracle, bad_arguments)
{
    load(unions);
    cr_assert_eq(acreR_coll_in_reach(NULL, entry("dc=x"), entry("dc=x"), 0),
                 ACRE_ERR_INVAL);
    cr_assert_eq(acreR_coll_in_reach(dir, NULL, entry("dc=x"), 0),
                 ACRE_ERR_INVAL);
}

/* ------------------------------------------------------------------------
 * The generator
 */

struct tally {
    unsigned zero, one, many, excluded, valued, replaced, entries;
};

static int
count_entry(void *arg, const acre_entry *e)
{
    void **a = arg;
    struct tally *t = a[0];
    const struct acreG_coll_case *c = a[1];
    struct acreR_coll *v = NULL;

    cr_assert_eq(acreR_coll_entry(ctx, dir, e, c->flags, c->ci, c->nci, &v), 0);
    t->entries++;
    if (v->nsub == 0)
        t->zero++;
    else if (v->nsub == 1)
        t->one++;
    else
        t->many++;
    if (v->nsub && !v->nattrs)
        t->excluded++;
    if (v->nattrs)
        t->valued++;
    for (unsigned k = 0; k < v->nattrs; k++)
        t->replaced += v->attrs[k].replaces_real;
    talloc_free(v);
    return 0;
}

static void
run_case(uint64_t seed, unsigned flags, struct tally *t)
{
    struct acreG_coll_case *c;
    acre_schema *s;
    acre_diag d = {0};
    void *cctx = talloc_new(ctx);

    cr_assert_eq(acreG_coll_gen(cctx, seed, flags, &c), 0);
    cr_assert_eq(acre_schema_new(cctx, ACRE_SCHEMA_SLAPD, &s, &d), 0);
    if (c->schema_text)
        cr_assert_eq(acre_schema_load_buffer(s, "gen.schema", c->schema_text,
                                             strlen(c->schema_text), &d),
                     0, "seed %llu: %s", (unsigned long long)seed, d.message);
    cr_assert_eq(acre_directory_load(cctx, s, "gen.ldif", c->ldif,
                                     strlen(c->ldif), &dir, &d),
                 0, "seed %llu flags %x: line %u: %s", (unsigned long long)seed,
                 flags, d.line, d.message);
    size_t n = acre_directory_count(dir);
    cr_assert(n >= 30 && n <= 400, "seed %llu: %zu entries",
              (unsigned long long)seed, n);
    if (t) {
        void *arg[2] = {t, c};
        const char *sfx = "dc=example,dc=com";
        acre_dn *b;
        cr_assert_eq(acre_dn_parse(cctx, s, sfx, strlen(sfx), 0, &b, NULL), 0);
        cr_assert_eq(
            acre_directory_walk(dir, b, ACRE_SCOPE_SUB, count_entry, arg), 0);
    }
    talloc_free(cctx);
}

Test(collective_oracle, generator_loads_and_spreads, .timeout = 120)
{
    struct tally t = {0};

    for (uint64_t seed = 1; seed <= 100; seed++) {
        unsigned flags =
            (seed % 4 == 1   ? 0
             : seed % 4 == 2 ? ACREG_GEN_OPENDJ
             : seed % 4 == 3 ? ACREG_GEN_COLLECT
                             : ACREG_GEN_OPENDJ | ACREG_GEN_COLLECT);
        run_case(seed, flags, seed <= 24 ? &t : NULL);
    }
    cr_log_info("entries %u: 0 subentries %u, 1 %u, more %u; excluded %u, "
                "with values %u, replaced %u",
                t.entries, t.zero, t.one, t.many, t.excluded, t.valued,
                t.replaced);
    /* the distribution is useful: every bucket is well represented */
    cr_assert_gt(t.zero * 10, t.entries, "zero %u of %u", t.zero, t.entries);
    cr_assert_gt(t.one * 10, t.entries, "one %u of %u", t.one, t.entries);
    cr_assert_gt(t.many * 10, t.entries, "many %u of %u", t.many, t.entries);
    cr_assert_gt(t.excluded, 5, "excluded %u", t.excluded);
    cr_assert_gt(t.valued * 4, t.entries, "valued %u of %u", t.valued,
                 t.entries);
    cr_assert_gt(t.replaced, 0);
}

Test(collective_oracle, generator_is_deterministic)
{
    struct acreG_coll_case *a, *b, *c;

    cr_assert_eq(
        acreG_coll_gen(ctx, 42, ACREG_GEN_OPENDJ | ACREG_GEN_COLLECT, &a), 0);
    cr_assert_eq(
        acreG_coll_gen(ctx, 42, ACREG_GEN_OPENDJ | ACREG_GEN_COLLECT, &b), 0);
    cr_assert_str_eq(a->ldif, b->ldif);
    cr_assert_eq(a->nci, b->nci);
    cr_assert_eq(a->flags, b->flags);
    cr_assert_eq(acreG_coll_gen(ctx, 43, 0, &c), 0);
    cr_assert_str_neq(a->ldif, c->ldif);
    cr_assert_null(c->schema_text);
    cr_assert_eq(c->nci, 0);
    cr_assert_eq(acreG_coll_gen(ctx, 1, ACREG_GEN_STACK, &c), 0);
    cr_assert_eq(c->flags, ACRER_COLL_STACK);
    cr_assert_eq(acreG_coll_gen(ctx, 1, ACREG_GEN_X501, &c), 0);
    cr_assert_eq(c->flags, 0);
    cr_assert_eq(acreG_coll_gen(ctx, 1, ACREG_GEN_X501 | ACREG_GEN_STACK, &c),
                 ACRE_ERR_INVAL);
    cr_assert_eq(acreG_coll_gen(ctx, 1, 0x1, &c), ACRE_ERR_INVAL);
}
