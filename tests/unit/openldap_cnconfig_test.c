/*
 * openldap_cnconfig_test.c -- unit tests of cn=config input to the
 * OpenLDAP front end (compiler/openldap_cnconfig.c): databases in {n}
 * order with the frontend's rules as the global ones, olcAccess {n}
 * ordering and its refusals, suffix and rootdn, schema entries loaded
 * before rules, errors at their line and column through LDIF folding,
 * slapd.d directories, and that a slapd.conf and its cn=config
 * conversion give the same tree.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

#include "acre.h"
#include "openldap.h"
#include "schema.h"

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

TestSuite(openldap_cnconfig, .init = setup, .fini = teardown);

static struct acreI_policy *
cn(const char *text, acre_schema *schema, acre_diag *d)
{
    struct acreI_policy *cfg = NULL;

    memset(d, 0, sizeof(*d));
    int rc = acreO_parse_cnconfig(ctx, schema, "t.ldif", text, strlen(text),
                                  &cfg, d);
    return rc ? NULL : cfg;
}

static const char *
norm(const acre_dn *dn)
{
    return dn ? acre_dn_normalised(dn, NULL) : "(null)";
}

static const char ldif[] =
    "dn: cn=config\n"
    "objectClass: olcGlobal\n"
    "cn: config\n"
    "\n"
    "dn: olcDatabase={1}mdb,cn=config\n"
    "objectClass: olcDatabaseConfig\n"
    "olcDatabase: {1}mdb\n"
    "olcSuffix: dc=example,dc=com\n"
    "olcRootDN: cn=Manager,dc=example,dc=com\n"
    "olcAccess: {1}to * by users read\n"
    "olcAccess: {0}to attrs=userPassword\n"
    "  by self =w by anonymous auth\n"
    "olcAccess: {2}to dn.subtree=\"ou=x,dc=example,dc=com\" by * search\n"
    "\n"
    "dn: olcDatabase={-1}frontend,cn=config\n"
    "objectClass: olcDatabaseConfig\n"
    "olcDatabase: {-1}frontend\n"
    "olcAccess: {0}to dn.base=\"\" by * read\n"
    "\n"
    "dn: olcDatabase={0}config,cn=config\n"
    "objectClass: olcDatabaseConfig\n"
    "olcDatabase: {0}config\n"
    "olcRootDN: cn=config\n"
    "\n"
    "dn: cn=module{0},cn=config\n"
    "objectClass: olcModuleList\n"
    "olcModuleLoad: {0}back_mdb\n";

Test(openldap_cnconfig, databases_and_order)
{
    acre_diag d;
    struct acreI_policy *cfg = cn(ldif, NULL, &d);

    cr_assert(cfg, "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    cr_expect_eq(cfg->frontend.nrules, 1);
    cr_expect_eq(cfg->frontend.rules[0].what.dn_style, ACREI_DN_BASE);
    cr_assert_eq(cfg->ndbs, 2);
    /* config ({0}) comes before mdb ({1}) whatever the file order */
    cr_expect_str_eq(cfg->dbs[0].type, "config");
    cr_expect_eq(cfg->dbs[0].index, 0);
    cr_expect_str_eq(norm(cfg->dbs[0].suffix[0]), "cn=config");
    cr_expect_eq(cfg->dbs[0].nrules, 1); /* slapd's default: to * by * none */
    cr_expect_eq(cfg->dbs[0].rules[0].by[0].mask, ACREI_LVL_NONE);
    const struct acreI_section *db = &cfg->dbs[1];
    cr_expect_str_eq(db->type, "mdb");
    cr_expect_str_eq(norm(db->suffix[0]), "dc=example,dc=com");
    cr_expect_str_eq(norm(db->rootdn), "cn=manager,dc=example,dc=com");
    cr_assert_eq(db->nrules, 3);
    /* sorted by {n}: userPassword (folded value), users read, subtree */
    cr_expect_eq(db->rules[0].what.attrs[0].type,
                 acreS_attr_find(acreS_builtin(), "userPassword", 12));
    cr_expect_eq(db->rules[0].nby, 2);
    cr_expect_eq(db->rules[0].pos.line, 11);
    cr_expect_eq(db->rules[1].by[0].dn.kind, ACREI_SUBJ_USERS);
    cr_expect_eq(db->rules[2].what.dn_style, ACREI_DN_SUBTREE);
    cr_expect_eq(db->rules[1].index, 1);
}

Test(openldap_cnconfig, errors_at_position)
{
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg;
    } t[] = {
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcAccess: {0}to * by * foo\n",
         2, 25, "expecting <access>"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcAccess: {0}to dn.exact=\"cn=a,\n"
         " dc=b\" by * frob\n",
         3, 13, "expecting <access>"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcAccess: {0}to * by * read\n"
         "olcAccess: to * by * read\n",
         3, 12, "all have a {n} index or none"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcAccess: {x}to * by * read\n",
         2, 12, "bad {n} index"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcSuffix: nonsense\n",
         2, 20, "suffix DN"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcRootDN: x\n",
         2, 13, "rootdn DN"},
        {"dn: olcDatabase={-1}frontend,cn=config\n"
         "olcSuffix: dc=x\n",
         2, 12, "not allowed in the frontend"},
        /* an error after the directive's name, which the value does not
         * hold: the value's start (a value shorter than the name once
         * read past its positions) */
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcLimits: x\n",
         2, 12, "a selector and a limit are needed"},
        {"dn: olcDatabase={1}mdb,cn=config\n"
         "olcLimits: {0}x\n",
         2, 12, "a selector and a limit are needed"},
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        acre_diag d;
        /* the objectClass slapadd needs, last: the lines stay */
        const char *text =
            talloc_asprintf(ctx, "%sobjectClass: x\n", t[i].text);
        cr_expect(cn(text, NULL, &d) == NULL, "accepted:\n%s", t[i].text);
        cr_expect_eq(d.code, ACRE_ERR_RULE_SYNTAX, "%s", t[i].text);
        cr_expect(d.line == t[i].line && d.column == t[i].col,
                  "at %u:%u want %u:%u (%s)\n%s", d.line, d.column, t[i].line,
                  t[i].col, d.message, t[i].text);
        cr_expect(strstr(d.message, t[i].msg), "message: %s", d.message);
    }
    /* LDIF errors come from the LDIF reader */
    acre_diag d;
    cr_expect(cn("dn: olcDatabase={1}mdb,cn=config\nnot ldif\n", NULL, &d) ==
              NULL);
    cr_expect_eq(d.code, ACRE_ERR_LDIF_SYNTAX);
}

/* What slapadd -n0 (2.5.13) refuses in a cn=config LDIF: an entry with no
 * objectClass ("no objectClass attribute"), and an entry whose DN, once
 * normalised, an earlier one has ("Already exists"); both were loaded
 * before, the second database's rules replacing nothing. */
Test(openldap_cnconfig, slapadd_refusals)
{
    static const char db[] = "dn: olcDatabase={1}mdb,cn=config\n"
                             "objectClass: olcDatabaseConfig\n"
                             "olcDatabase: {1}mdb\n"
                             "olcSuffix: dc=example,dc=com\n"
                             "olcAccess: {0}to * by * none\n\n";

    static const struct {
        const char *second; /* the record after db */
        int code;
        unsigned line;
        const char *msg;
    } t[] = {
        {"dn: olcDatabase={2}mdb,cn=config\nolcDatabase: {2}mdb\n"
         "olcSuffix: dc=other\n",
         ACRE_ERR_LDIF_SYNTAX, 7, "no objectClass attribute"},
        {"dn: olcDatabase={1}mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
         "olcAccess: {0}to * by * read\n",
         ACRE_ERR_LDIF_DUP_ENTRY, 7, "line 1"},
        {"dn: OLCDATABASE={1}MDB,  CN=Config\nobjectClass: x\n",
         ACRE_ERR_LDIF_DUP_ENTRY, 7, "duplicate entry"},
        {"dn: olcDatabase={1}mdb,cn=config\nobjectClass: x\n\n"
         "dn: olcDatabase={1}mdb,cn=config\nobjectClass: x\n",
         ACRE_ERR_LDIF_DUP_ENTRY, 7, "line 1"},
        {"dn: cn=x,,cn=config\nobjectClass: x\n", ACRE_ERR_LDIF_DN, 7,
         "invalid DN"},
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        acre_diag d;
        const char *text = talloc_asprintf(ctx, "%s%s", db, t[i].second);
        cr_expect(cn(text, NULL, &d) == NULL, "accepted:\n%s", text);
        cr_expect_eq(d.code, t[i].code, "%d:\n%s", d.code, text);
        cr_expect(d.line == t[i].line && d.column == 1, "at %u:%u (%s)\n%s",
                  d.line, d.column, d.message, text);
        cr_expect(strstr(d.message, t[i].msg), "message: %s", d.message);
    }
    acre_diag d;
    cr_expect(cn(db, NULL, &d) != NULL, "%s", d.message);
}

/* slapd strips each ordered value up to its first '}', wherever it is. */
Test(openldap_cnconfig, strip_to_first_brace)
{
    acre_diag d;
    struct acreI_policy *cfg = cn("dn: olcDatabase={1}mdb,cn=config\n"
                                  "olcAccess: to dn.regex=\"^a{2}\" by * read\n"
                                  "objectClass: olcDatabaseConfig\n",
                                  NULL, &d);
    /* what is left is "\" by * read": one token, quoted to the end */
    cr_expect(cfg == NULL);
    cr_expect(strstr(d.message, "expecting \"to\" or \"by\" got \" by * "
                                "read\""),
              "%s", d.message);
}

Test(openldap_cnconfig, schema_entries)
{
    static const char text[] =
        "dn: cn={0}local,cn=schema,cn=config\n"
        "objectClass: olcSchemaConfig\n"
        "cn: {0}local\n"
        "olcAttributeTypes: {0}( 1.3.6.1.4.1.99999.7 NAME 'acreCnAttr' "
        "SUP name )\n"
        "\n"
        "dn: olcDatabase={-1}frontend,cn=config\n"
        "olcAccess: {0}to attrs=acreCnAttr by * read\n"
        "objectClass: olcDatabaseConfig\n";
    acre_schema *s;
    acre_diag d;
    cr_assert_eq(acre_schema_new(ctx, 0, &s, NULL), 0);
    struct acreI_policy *cfg = cn(text, s, &d);
    cr_assert(cfg, "%s", d.message);
    cr_expect_eq(cfg->frontend.rules[0].what.attrs[0].type,
                 acreS_attr_find(s, "acreCnAttr", 10));
    /* without a schema: noted, and the rule cannot name the type */
    cr_expect(cn(text, NULL, &d) == NULL);
    cr_expect(strstr(d.message, "unknown attr"), "%s", d.message);
}

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

Test(openldap_cnconfig, slapd_d_directory)
{
    char dir[] = "/tmp/acre-cn-XXXXXX";
    cr_assert(mkdtemp(dir));
    char *top = talloc_asprintf(ctx, "%s/cn=config", dir);
    char *sch = talloc_asprintf(ctx, "%s/cn=schema", top);
    cr_assert_eq(mkdir(top, 0700), 0);
    cr_assert_eq(mkdir(sch, 0700), 0);
    write_file(talloc_asprintf(ctx, "%s/cn=config.ldif", dir),
               "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n");
    write_file(talloc_asprintf(ctx, "%s/cn={0}x.ldif", sch),
               "dn: cn={0}x\nobjectClass: olcSchemaConfig\ncn: {0}x\n"
               "olcAttributeTypes: {0}( 1.3.6.1.4.1.99999.8 NAME "
               "'acreDirAttr' SUP name )\n");
    write_file(talloc_asprintf(ctx, "%s/olcDatabase={2}mdb.ldif", top),
               "# AUTO-GENERATED FILE - DO NOT EDIT!! Use ldapmodify.\n"
               "dn: olcDatabase={2}mdb\nolcDatabase: {2}mdb\n"
               "olcSuffix: dc=two\nolcAccess: {0}to * by * none\n"
               "objectClass: olcDatabaseConfig\n");
    write_file(talloc_asprintf(ctx, "%s/olcDatabase={1}mdb.ldif", top),
               "dn: olcDatabase={1}mdb\nolcDatabase: {1}mdb\n"
               "olcSuffix: dc=one\n"
               "olcAccess: {0}to attrs=acreDirAttr by * read\n"
               "objectClass: olcDatabaseConfig\n");
    write_file(talloc_asprintf(ctx, "%s/olcDatabase={-1}frontend.ldif", top),
               "dn: olcDatabase={-1}frontend\n"
               "olcAccess: {0}to * by * search\n"
               "objectClass: olcDatabaseConfig\n");

    acre_schema *s;
    cr_assert_eq(acre_schema_new(ctx, 0, &s, NULL), 0);
    struct acreI_policy *cfg = NULL;
    acre_diag d = {0};
    int rc = acreO_parse_cnconfig(ctx, s, dir, NULL, 0, &cfg, &d);
    cr_assert_eq(rc, 0, "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    cr_expect_eq(cfg->frontend.nrules, 1);
    cr_assert_eq(cfg->ndbs, 2);
    cr_expect_str_eq(norm(cfg->dbs[0].suffix[0]), "dc=one");
    cr_expect_str_eq(norm(cfg->dbs[1].suffix[0]), "dc=two");
    cr_expect(strstr(cfg->dbs[0].rules[0].pos.file, "olcDatabase={1}mdb"));
    cr_expect_eq(cfg->dbs[0].rules[0].pos.line, 4);
    /* an entry with no objectClass: slaptest -F loads it without making
     * the database (its suffix then served by nobody); refused here */
    write_file(talloc_asprintf(ctx, "%s/olcDatabase={1}mdb.ldif", top),
               "dn: olcDatabase={1}mdb\nolcDatabase: {1}mdb\n"
               "olcSuffix: dc=one\n");
    cr_expect_eq(acreO_parse_cnconfig(ctx, NULL, dir, NULL, 0, &cfg, &d),
                 ACRE_ERR_LDIF_SYNTAX);
    cr_expect(strstr(d.file, "olcDatabase={1}mdb.ldif"), "%s", d.file);

    char *cmd = talloc_asprintf(ctx, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

/* A slapd.conf and the cn=config slapd makes of it give the same rules
 * (that LDIF was written by slaptest -f ... -F ... from the same rules). */
Test(openldap_cnconfig, same_as_slapd_conf)
{
    static const char conf[] =
        "access to dn.base=\"\" attrs=objectClass by users read\n"
        "database mdb\n"
        "suffix \"dc=example,dc=com\"\n"
        "rootdn \"cn=Manager,dc=example,dc=com\"\n"
        "access to attrs=objectclass\n"
        "  by dn.exact=\"cn=Bjorn Jensen,dc=example,dc=com\" add\n"
        "  by * =rsc stop\n"
        "access to dn.children=\"ou=Alumni,dc=example,dc=com\"\n"
        "  by dn.regex=\".+,dc=example,dc=com\" +c continue\n"
        "  by * stop\n";
    static const char cnconf[] =
        "dn: olcDatabase={-1}frontend,cn=config\n"
        "objectClass: olcDatabaseConfig\n"
        "olcDatabase: {-1}frontend\n"
        "olcAccess: {0}to dn.base=\"\"  attrs=objectClass  by users read\n"
        "\n"
        "dn: olcDatabase={1}mdb,cn=config\n"
        "objectClass: olcDatabaseConfig\n"
        "olcDatabase: {1}mdb\n"
        "olcSuffix: dc=example,dc=com\n"
        "olcRootDN: cn=Manager,dc=example,dc=com\n"
        "olcAccess: {0}to attrs=objectclass  by dn.base=\"cn=bjorn jensen,dc="
        "example,dc=com\" add  by * =rsc\n"
        "olcAccess: {1}to dn.children=\"ou=alumni,dc=example,dc=com\"  by dn."
        "regex=\".+,dc=example,dc=com\" +c continue  by * +0\n";
    struct acreI_policy *a = NULL, *b;
    acre_diag d;
    cr_assert_eq(acreO_parse_conf(ctx, NULL, "x", conf, strlen(conf), &a, &d),
                 0, "%s", d.message);
    cr_assert((b = cn(cnconf, NULL, &d)), "%s", d.message);
    cr_expect_str_eq(acreO_config_dump(ctx, a), acreO_config_dump(ctx, b));
}

/* olcSubordinate: slapd's startup refuses a subordinate database no
 * later one holds (glue_sub_attach), whatever form the configuration
 * takes; the error is at the database's entry. */
Test(openldap_cnconfig, subordinate_needs_a_superior)
{
    static const char head[] = "dn: cn=config\nobjectClass: olcGlobal\n"
                               "cn: config\n\n"
                               "dn: olcDatabase={1}mdb,cn=config\n"
                               "objectClass: olcDatabaseConfig\n"
                               "olcDatabase: {1}mdb\n"
                               "olcSuffix: ou=a,dc=x\n"
                               "olcSubordinate: TRUE\n";
    static const char sup[] = "\ndn: olcDatabase={2}mdb,cn=config\n"
                              "objectClass: olcDatabaseConfig\n"
                              "olcDatabase: {2}mdb\n"
                              "olcSuffix: dc=x\n";
    acre_diag d;
    char text[1024];

    cr_expect_null(cn(head, NULL, &d));
    cr_expect(strstr(d.message, "no superior found") != NULL, "%s", d.message);
    cr_expect_eq(d.line, 5, "line %u (%s)", d.line, d.message);
    snprintf(text, sizeof text, "%s%s", head, sup);
    struct acreI_policy *cfg = cn(text, NULL, &d);
    cr_assert_not_null(cfg, "%s", d.message);
    cr_expect(cfg->dbs[0].subordinate);
}
