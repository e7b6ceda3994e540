/*
 * subentry_spec_test.c -- the subtreeSpecification parser and formatter
 * (compiler/subentry.c): every construct of RFC 3672's GSER grammar and
 * OpenDJ's filter refinement, every error with its column, the limits, and
 * the round trip parse -> format -> parse.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "subentry.h"

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(subentry_spec, .init = setup, .fini = teardown);

/* Parse s, which must succeed. */
static struct acreU_spec *
ok(const char *s)
{
    struct acreU_spec *spec = NULL;
    unsigned col = 0;
    const char *msg = NULL;
    int rc = acreU_spec_parse(ctx, s, strlen(s), &spec, &col, &msg);

    cr_assert_eq(rc, 0, "%s: col %u: %s", s, col, msg ? msg : "?");
    cr_assert_not_null(spec);
    return spec;
}

/* Parse s, which must fail with `code` at column `col`, the message
 * containing `part`. */
static void
bad(const char *s, int code, unsigned col, const char *part)
{
    struct acreU_spec *spec = (struct acreU_spec *)&spec;
    unsigned c = 0;
    const char *msg = NULL;
    int rc = acreU_spec_parse(ctx, s, strlen(s), &spec, &c, &msg);

    cr_assert_eq(rc, code, "%s: rc %d (%s)", s, rc, msg ? msg : "-");
    cr_assert_eq(c, col, "%s: column %u, want %u (%s)", s, c, col, msg);
    cr_assert_not_null(msg);
    cr_assert(strstr(msg, part), "%s: message \"%s\" lacks \"%s\"", s, msg,
              part);
    cr_assert_eq(spec, (struct acreU_spec *)&spec, "out changed on error");
}

#define SYN ACRE_ERR_RULE_SYNTAX
#define LIM ACRE_ERR_RULE_LIMIT

/* The canonical text of s. */
static const char *
canon(const char *s)
{
    char *t = acreU_spec_format(ctx, ok(s));

    cr_assert_not_null(t);
    return t;
}

/* ------------------------------------------------------------------------
 * Constructs
 */

Test(subentry_spec, empty_spec_is_everything)
{
    struct acreU_spec *s = ok("{}");

    cr_assert_str_eq(s->base, "");
    cr_assert_eq(s->nchops, 0);
    cr_assert_eq(s->minimum, 0);
    cr_assert_eq(s->maximum, ACREU_NO_MAX);
    cr_assert_null(s->refine);
    ok("{ }");
    ok("{     }");
}

Test(subentry_spec, every_component)
{
    struct acreU_spec *s =
        ok("{ base \"ou=people\", specificExclusions { chopBefore:\"ou=a\", "
           "chopAfter:\"ou=b,ou=c\" }, minimum 1, maximum 3, "
           "specificationFilter item:person }");

    cr_assert_str_eq(s->base, "ou=people");
    cr_assert_eq(s->nchops, 2);
    cr_assert_str_eq(s->chops[0].local, "ou=a");
    cr_assert_eq(s->chops[0].after, 0);
    cr_assert_str_eq(s->chops[1].local, "ou=b,ou=c");
    cr_assert_eq(s->chops[1].after, 1);
    cr_assert_eq(s->minimum, 1);
    cr_assert_eq(s->maximum, 3);
    cr_assert_eq(s->refine->kind, ACREU_ITEM);
    cr_assert_str_eq(s->refine->text, "person");
    cr_assert_eq(s->refine->nsub, 0);
}

Test(subentry_spec, each_component_alone)
{
    cr_assert_str_eq(ok("{base \"cn=x\"}")->base, "cn=x");
    cr_assert_eq(ok("{specificExclusions {chopAfter:\"cn=x\"}}")->nchops, 1);
    cr_assert_eq(ok("{minimum 7}")->minimum, 7);
    cr_assert_eq(ok("{maximum 0}")->maximum, 0);
    cr_assert_eq(ok("{specificationFilter not:item:top}")->refine->kind,
                 ACREU_NOT);
    /* components may be skipped: the first present one takes no comma */
    cr_assert_eq(ok("{ minimum 2, specificationFilter item:x }")->minimum, 2);
}

Test(subentry_spec, base_empty_string_is_absent)
{
    cr_assert_str_eq(ok("{ base \"\" }")->base, "");
    cr_assert_str_eq(canon("{ base \"\" }"), "{}");
}

Test(subentry_spec, exclusions_empty_and_repeated)
{
    cr_assert_eq(ok("{ specificExclusions { } }")->nchops, 0);
    cr_assert_eq(ok("{ specificExclusions {} }")->nchops, 0);
    struct acreU_spec *s = ok("{ specificExclusions { chopBefore:\"cn=a\", "
                              "chopBefore:\"cn=a\", chopAfter:\"cn=a\" } }");
    cr_assert_eq(s->nchops, 3); /* a SET OF keeps what it was given */
    cr_assert_eq(s->chops[2].after, 1);
}

Test(subentry_spec, string_escapes_and_utf8)
{
    struct acreU_spec *s = ok("{ base \"cn=say \"\"hi\"\",o=x\" }");

    cr_assert_str_eq(s->base, "cn=say \"hi\",o=x");
    cr_assert_str_eq(ok("{ base \"\"\"\"\"\" }")->base, "\"\"");
    /* DN escapes pass through untouched: the string is not a DN here */
    cr_assert_str_eq(ok("{ base \"cn=a\\,b\" }")->base, "cn=a\\,b");
    cr_assert_str_eq(ok("{ base \"cn=Stra\xc3\x9f"
                        "e\xe2\x82\xac\xf0\x9f\x98\x80\" }")
                         ->base,
                     "cn=Stra\xc3\x9f"
                     "e\xe2\x82\xac\xf0\x9f\x98\x80");
    /* braces, commas and colons inside strings are content */
    cr_assert_str_eq(ok("{ base \"cn={a},b:c\" }")->base, "cn={a},b:c");
}

Test(subentry_spec, numbers)
{
    cr_assert_eq(ok("{ minimum 0 }")->minimum, 0);
    cr_assert_eq(ok("{ minimum 10 }")->minimum, 10);
    cr_assert_eq(ok("{ maximum 4294967294 }")->maximum, 4294967294u);
    cr_assert_eq(ok("{ minimum 4294967294 }")->minimum, 4294967294u);
}

Test(subentry_spec, refinement_tree)
{
    struct acreU_spec *s =
        ok("{ specificationFilter and:{ item:person, or:{ item:2.5.6.7, "
           "not:item:device }, \"(ou=sales)\", and:{}, or:{ } } }");
    const struct acreU_refine *r = s->refine, *o;

    cr_assert_eq(r->kind, ACREU_AND);
    cr_assert_eq(r->nsub, 5);
    cr_assert_eq(r->sub[0]->kind, ACREU_ITEM);
    o = r->sub[1];
    cr_assert_eq(o->kind, ACREU_OR);
    cr_assert_eq(o->nsub, 2);
    cr_assert_str_eq(o->sub[0]->text, "2.5.6.7");
    cr_assert_eq(o->sub[1]->kind, ACREU_NOT);
    cr_assert_eq(o->sub[1]->nsub, 1);
    cr_assert_str_eq(o->sub[1]->sub[0]->text, "device");
    cr_assert_eq(r->sub[2]->kind, ACREU_FILTER);
    cr_assert_str_eq(r->sub[2]->text, "(ou=sales)");
    cr_assert_eq(r->sub[3]->kind, ACREU_AND);
    cr_assert_eq(r->sub[3]->nsub, 0);
    cr_assert_eq(r->sub[4]->kind, ACREU_OR);
    cr_assert_eq(r->sub[4]->nsub, 0);
}

Test(subentry_spec, filter_refinement)
{
    struct acreU_spec *s =
        ok("{ specificationFilter \"(&(objectClass=person)(cn=\"\"x\"\"))\" }");

    cr_assert_eq(s->refine->kind, ACREU_FILTER);
    cr_assert_str_eq(s->refine->text, "(&(objectClass=person)(cn=\"x\"))");
    cr_assert_eq(
        ok("{ specificationFilter not:\"(cn=a)\" }")->refine->sub[0]->kind,
        ACREU_FILTER);
}

Test(subentry_spec, oid_forms)
{
    cr_assert_str_eq(
        ok("{specificationFilter item:inetOrgPerson}")->refine->text,
        "inetOrgPerson");
    cr_assert_str_eq(ok("{specificationFilter item:x-my-class2}")->refine->text,
                     "x-my-class2");
    cr_assert_str_eq(
        ok("{specificationFilter item:1.3.6.1.4.1.0.10}")->refine->text,
        "1.3.6.1.4.1.0.10");
}

Test(subentry_spec, spaces_where_gser_allows)
{
    struct acreU_spec *s = ok("{base    \"x\",minimum     2,   maximum 3    }");

    cr_assert_str_eq(s->base, "x");
    cr_assert_eq(s->minimum, 2);
    cr_assert_eq(s->maximum, 3);
    ok("{specificExclusions {chopBefore:\"a\",chopAfter:\"b\"}}");
    ok("{ specificExclusions {chopBefore:\"a\",   chopAfter:\"b\"   } }");
    ok("{ specificationFilter and:{item:a,or:{   item:b   }} }");
}

/* ------------------------------------------------------------------------
 * Errors, each with its column
 */

Test(subentry_spec, errors_outside)
{
    bad("", SYN, 1, "starts with '{'");
    bad(" {}", SYN, 1, "starts with '{'");
    bad("{", SYN, 2, "component name or '}'");
    bad("{} ", SYN, 3, "after the closing");
    bad("{}x", SYN, 3, "after the closing");
    bad("{ base \"x\"", SYN, 11, "',' or '}'");
}

Test(subentry_spec, errors_component_names)
{
    bad("{ Base \"x\" }", SYN, 3, "case-sensitive");
    bad("{ minimun 1 }", SYN, 3, "unknown component");
    bad("{ , minimum 1 }", SYN, 3, "component name or '}'");
    bad("{ minimum 1, base \"x\" }", SYN, 14, "order");
    bad("{ minimum 1, minimum 2 }", SYN, 14, "twice");
    bad("{ specificationFilter item:a, minimum 1 }", SYN, 31, "order");
    bad("{ base\"x\" }", SYN, 7, "space after the component name");
    bad("{ minimum1 }", SYN, 3, "unknown component");
}

Test(subentry_spec, errors_separators)
{
    bad("{ base \"x\" minimum 1 }", SYN, 12, "',' or '}'");
    bad("{ base \"x\",, minimum 1 }", SYN, 12, "component name");
    bad("{ base \"x\", }", SYN, 13, "component name");
}

/* Spaces before a comma and around ':' are accepted, as OpenDJ and
 * ApacheDS accept them and RFC 3672's examples write them. */
Test(subentry_spec, lax_spaces)
{
    struct acreU_spec *a = ok("{ base \"x\" , specificExclusions { "
                              "chopBefore : \"a\" , chopAfter: \"b\" } , "
                              "specificationFilter and : { item :a , not: "
                              "item: b } }");
    struct acreU_spec *b = ok("{ base \"x\", specificExclusions "
                              "{ chopBefore:\"a\", chopAfter:\"b\" }, "
                              "specificationFilter and:{ item:a, "
                              "not:item:b } }");

    cr_assert_str_eq(acreU_spec_format(ctx, a), acreU_spec_format(ctx, b));
    cr_assert_eq(a->nchops, 2);
    cr_assert_eq(a->chops[1].after, 1);
    cr_assert_str_eq(a->refine->sub[1]->sub[0]->text, "b");
}

Test(subentry_spec, errors_strings)
{
    bad("{ base \"abc }", SYN, 8, "unterminated");
    bad("{ base x }", SYN, 8, "quoted string");
    bad("{ base \"a\"b\" }", SYN, 11, "',' or '}'");
    bad("{ base \"a\xff\" }", SYN, 10, "UTF-8");
    bad("{ base \"a\xc0\xaf\" }", SYN, 10, "UTF-8");         /* overlong */
    bad("{ base \"a\xed\xa0\x80\" }", SYN, 10, "UTF-8");     /* surrogate */
    bad("{ base \"a\xf4\x90\x80\x80\" }", SYN, 10, "UTF-8"); /* > 10FFFF */
    bad("{ base \"a\xe2\x82\" }", SYN, 10, "UTF-8");         /* truncated */
    {
        static const char nul[] = "{ base \"a\0b\" }";
        struct acreU_spec *s = NULL;
        unsigned col = 0;
        const char *msg = NULL;
        cr_assert_eq(
            acreU_spec_parse(ctx, nul, sizeof(nul) - 1, &s, &col, &msg), SYN);
        cr_assert_eq(col, 10);
        cr_assert(strstr(msg, "NUL"));
    }
}

Test(subentry_spec, errors_exclusions)
{
    bad("{ specificExclusions chopBefore:\"a\" }", SYN, 22, "'{'");
    bad("{ specificExclusions { chopbefore:\"a\" } }", SYN, 24,
        "case-sensitive");
    bad("{ specificExclusions { chop:\"a\" } }", SYN, 24, "chopBefore:");
    bad("{ specificExclusions { chopBefore \"a\" } }", SYN, 35, "':'");
    bad("{ specificExclusions { chopBefore: a } }", SYN, 36, "quoted string");
    bad("{ specificExclusions { chopAfter:\"\" } }", SYN, 34, "cannot be");
    bad("{ specificExclusions { chopAfter:\"a\" }", SYN, 39, "',' or '}'");
}

Test(subentry_spec, errors_numbers)
{
    bad("{ minimum -1 }", SYN, 11, "without sign");
    bad("{ minimum +1 }", SYN, 11, "without sign");
    bad("{ minimum 01 }", SYN, 11, "leading zeros");
    bad("{ minimum x }", SYN, 11, "expected a number");
    bad("{ maximum 1.5 }", SYN, 12, "',' or '}'");
    bad("{ maximum 4294967295 }", LIM, 11, "too large");
    bad("{ minimum 99999999999999999999999 }", LIM, 11, "too large");
}

Test(subentry_spec, errors_refinements)
{
    bad("{ specificationFilter Item:a }", SYN, 23, "lowercase");
    bad("{ specificationFilter items:a }", SYN, 23, "expected a refinement");
    bad("{ specificationFilter (cn=a) }", SYN, 23, "expected a refinement");
    bad("{ specificationFilter item a }", SYN, 28, "':'");
    bad("{ specificationFilter item: _a }", SYN, 29, "object class");
    bad("{ specificationFilter item:_a }", SYN, 28, "object class");
    bad("{ specificationFilter item:1 }", SYN, 28, "two parts");
    bad("{ specificationFilter item:1. }", SYN, 30, "malformed");
    bad("{ specificationFilter item:1.02 }", SYN, 30, "leading zero");
    bad("{ specificationFilter and:item:a }", SYN, 27, "'{'");
    bad("{ specificationFilter and:{ item:a item:b } }", SYN, 36, "',' or '}'");
    bad("{ specificationFilter not: }", SYN, 28, "expected a");
    bad("{ specificationFilter not:{ item:a } }", SYN, 27, "expected a");
    bad("{ specificationFilter \"\" }", SYN, 23, "empty filter");
    bad("{ specificationFilter or:{ item:a, } }", SYN, 36,
        "expected a refinement");
}

/* ------------------------------------------------------------------------
 * Limits
 */

/* n nested not: around item:x */
static char *
nots(unsigned n)
{
    char *s = talloc_strdup(ctx, "{ specificationFilter ");

    for (unsigned k = 0; k < n; k++)
        s = talloc_strdup_append(s, "not:");
    return talloc_strdup_append(s, "item:x }");
}

Test(subentry_spec, depth_limit)
{
    struct acreU_spec *s = ok(nots(ACREU_MAX_DEPTH));
    const struct acreU_refine *r = s->refine;
    unsigned depth = 0;

    while (r->kind == ACREU_NOT) {
        r = r->sub[0];
        depth++;
    }
    cr_assert_eq(depth, ACREU_MAX_DEPTH);
    /* the 33rd not: starts at column 23 + 32 * 4 */
    bad(nots(ACREU_MAX_DEPTH + 1), LIM, 23 + 32 * 4 + 0, "deeper than 32");
    bad(nots(1000), LIM, 23 + 32 * 4, "deeper than 32");
}

Test(subentry_spec, depth_limit_through_and_or)
{
    char *s = talloc_strdup(ctx, "{ specificationFilter ");

    for (unsigned k = 0; k < 40; k++)
        s = talloc_strdup_append(s, k % 2 ? "or:{" : "and:{");
    s = talloc_strdup_append(s, "item:x");
    for (unsigned k = 0; k < 40; k++)
        s = talloc_strdup_append(s, "}");
    s = talloc_strdup_append(s, " }");
    bad(s, LIM, 23 + 16 * 9, "deeper than 32");
}

/* A spec with n chops. */
static char *
chops(unsigned n)
{
    char *s = talloc_strdup(ctx, "{ specificExclusions { ");

    for (unsigned k = 0; k < n; k++)
        s = talloc_asprintf_append(s, "%schopBefore:\"cn=%u\"", k ? ", " : "",
                                   k);
    return talloc_strdup_append(s, " } }");
}

Test(subentry_spec, item_limit)
{
    cr_assert_eq(ok(chops(ACREU_MAX_ITEMS))->nchops, ACREU_MAX_ITEMS);
    char *s = chops(ACREU_MAX_ITEMS + 1);
    const char *last = strstr(s, "chopBefore:\"cn=1024\"");
    bad(s, LIM, (unsigned)(last - s) + 1, "more than 1024");
}

Test(subentry_spec, item_limit_counts_refinements_too)
{
    /* 1000 chops and 25 refinement nodes: 1025 items */
    char *s = chops(1000);
    s[strlen(s) - 2] = '\0'; /* drop the closing "}" of the spec */
    s = talloc_strdup_append(s, ", specificationFilter or:{");
    for (unsigned k = 0; k < 24; k++)
        s = talloc_strdup_append(s, k ? ", item:a" : " item:a");
    s = talloc_strdup_append(s, " } }");
    bad(s, LIM, (unsigned)(strrchr(s, 'i') - s) + 1, "more than 1024");
}

Test(subentry_spec, text_limit)
{
    size_t n = ACREU_MAX_TEXT + 1;
    char *s = talloc_size(ctx, n);
    struct acreU_spec *spec = NULL;
    unsigned col = 0;
    const char *msg = NULL;

    memset(s, ' ', n);
    s[0] = '{';
    s[n - 1] = '}';
    cr_assert_eq(acreU_spec_parse(ctx, s, n, &spec, &col, &msg), LIM);
    cr_assert_eq(col, ACREU_MAX_TEXT + 1);
    cr_assert(strstr(msg, "65536"));
    cr_assert_null(spec);
    /* exactly at the limit is fine */
    cr_assert_eq(acreU_spec_parse(ctx, s + 1, n - 1, &spec, &col, &msg), SYN);
    s[1] = '{';
    cr_assert_eq(acreU_spec_parse(ctx, s + 1, n - 1, &spec, &col, &msg), 0);
}

Test(subentry_spec, long_strings_cost_their_length)
{
    /* 800 strings of 59 bytes: the result holds about 50 KB, not 800
     * copies of the rest of the text (23 MB) */
    char *s = talloc_strdup(ctx, "{ specificExclusions { ");
    for (unsigned k = 0; k < 800; k++)
        s = talloc_asprintf_append(s, "%schopAfter:\"cn=%056u\"", k ? ", " : "",
                                   k);
    s = talloc_strdup_append(s, " } }");
    void *sub = talloc_new(ctx);
    struct acreU_spec *spec = NULL;
    cr_assert_eq(acreU_spec_parse(sub, s, strlen(s), &spec, NULL, NULL), 0);
    cr_assert_lt(talloc_total_size(sub), 200000);
}

Test(subentry_spec, bad_arguments)
{
    struct acreU_spec *spec = NULL;

    cr_assert_eq(acreU_spec_parse(ctx, "{}", 2, NULL, NULL, NULL),
                 ACRE_ERR_INVAL);
    cr_assert_eq(acreU_spec_parse(ctx, NULL, 2, &spec, NULL, NULL),
                 ACRE_ERR_INVAL);
    cr_assert_null(acreU_spec_format(ctx, NULL));
}

/* ------------------------------------------------------------------------
 * Format and round trip
 */

Test(subentry_spec, canonical_form)
{
    cr_assert_str_eq(canon("{}"), "{}");
    cr_assert_str_eq(canon("{ minimum 0 }"), "{}");
    cr_assert_str_eq(canon("{ specificExclusions {} }"), "{}");
    cr_assert_str_eq(canon("{base    \"x\",minimum  2,maximum 3}"),
                     "{ base \"x\", minimum 2, maximum 3 }");
    cr_assert_str_eq(
        canon("{specificExclusions {chopBefore:\"a\",chopAfter:\"b\"}}"),
        "{ specificExclusions { chopBefore:\"a\", chopAfter:\"b\" } }");
    cr_assert_str_eq(canon("{specificationFilter and:{item:a,or:{},"
                           "not:\"(cn=\"\"q\"\")\"}}"),
                     "{ specificationFilter and:{ item:a, or:{}, "
                     "not:\"(cn=\"\"q\"\")\" } }");
    cr_assert_str_eq(canon("{ base \"say \"\"x\"\"\" }"),
                     "{ base \"say \"\"x\"\"\" }");
}

/* Parse, format, parse again, format again: the same text, and the same
 * spec field by field. */
static int
same_refine(const struct acreU_refine *a, const struct acreU_refine *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || a->nsub != b->nsub || !a->text != !b->text ||
        (a->text && strcmp(a->text, b->text)))
        return 0;
    for (unsigned k = 0; k < a->nsub; k++)
        if (!same_refine(a->sub[k], b->sub[k]))
            return 0;
    return 1;
}

static void
round_trip(const char *s)
{
    struct acreU_spec *a = ok(s), *b;
    char *t = acreU_spec_format(ctx, a), *u;

    cr_assert_not_null(t);
    b = ok(t);
    u = acreU_spec_format(ctx, b);
    cr_assert_str_eq(t, u);
    cr_assert_str_eq(a->base, b->base);
    cr_assert_eq(a->nchops, b->nchops);
    for (unsigned k = 0; k < a->nchops; k++) {
        cr_assert_str_eq(a->chops[k].local, b->chops[k].local);
        cr_assert_eq(a->chops[k].after, b->chops[k].after);
    }
    cr_assert_eq(a->minimum, b->minimum);
    cr_assert_eq(a->maximum, b->maximum);
    cr_assert(same_refine(a->refine, b->refine), "%s", s);
}

Test(subentry_spec, round_trips)
{
    static const char *const cases[] = {
        "{}",
        "{ base \"ou=people\" }",
        "{base \"a\"\"b\",specificExclusions {chopAfter:\"x\"\"\"}}",
        "{ specificExclusions { chopBefore:\"ou=a\", chopAfter:\"ou=b\" }, "
        "minimum 1, maximum 3 }",
        "{ maximum 0 }",
        "{ minimum 4294967294, maximum 4294967294 }",
        "{ specificationFilter item:2.5.6.6 }",
        "{ specificationFilter not:not:or:{and:{},or:{item:a,\"(x=*)\"}} }",
        "{ base \"cn=\xc3\xa9t\xc3\xa9\", specificationFilter "
        "\"(cn=\xe2\x82\xac)\" }",
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        round_trip(cases[k]);
    round_trip(nots(ACREU_MAX_DEPTH));
    round_trip(chops(ACREU_MAX_ITEMS));
}

Test(subentry_spec, format_by_hand)
{
    struct acreU_refine item = {ACREU_ITEM, "person", NULL, 0};
    struct acreU_refine *subs[] = {&item, &item};
    struct acreU_refine both = {ACREU_OR, NULL, subs, 2};
    struct acreU_chop ch = {"cn=q\"", 1};
    struct acreU_spec s = {"", &ch, 1, 2, ACREU_NO_MAX, &both};

    cr_assert_str_eq(acreU_spec_format(ctx, &s),
                     "{ specificExclusions { chopAfter:\"cn=q\"\"\" }, "
                     "minimum 2, specificationFilter or:{ item:person, "
                     "item:person } }");
    struct acreU_refine broken = {ACREU_NOT, NULL, NULL, 0};
    s.refine = &broken;
    cr_assert_null(acreU_spec_format(ctx, &s)); /* not: without operand */
}

Test(subentry_spec, result_belongs_to_mem_ctx)
{
    void *sub = talloc_new(ctx);
    struct acreU_spec *s = NULL;
    const char *t = "{ base \"x\", specificationFilter and:{ item:a } }";

    cr_assert_eq(acreU_spec_parse(sub, t, strlen(t), &s, NULL, NULL), 0);
    cr_assert_eq(talloc_parent(s), sub);
    talloc_free(sub); /* frees everything; ASan/valgrind would tell */
}
