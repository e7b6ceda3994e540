/*
 * acl_case.c -- the files of an access-control case (see acl_case.h).
 *
 * Everything hangs off the talloc context the caller gives; reading dies
 * on a malformed file (a case directory is written by this suite, or by
 * hand for a fixed case, and a typo must not pass for an empty case).
 */
#include "acl_case.h"

#include "acre.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

static const char *const scope_names[] = {"base", "one", "sub", "children"};
static const char *const kind_names[] = {"anon", "root", "proxy", "bind"};

const char *
acl_scope_name(int scope)
{
    return scope >= 0 && scope < 4 ? scope_names[scope] : "?";
}

int
acl_scope_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, scope_names[i]))
            return i;
    dt_die("unknown scope \"%s\"", s);
}

const char *
acl_kind_name(enum acl_kind k)
{
    return (unsigned)k < 4 ? kind_names[k] : "?";
}

static enum acl_kind
kind_parse(const char *s)
{
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(s, kind_names[i]))
            return (enum acl_kind)i;
    dt_die("unknown requester kind \"%s\"", s);
}

/* ---- reading ----------------------------------------------------------- */

static char *
slurp(void *ctx, const char *dir, const char *name, int must)
{
    char path[4096];
    FILE *f;
    char *text;
    long n;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "rb"))) {
        if (must)
            dt_die("cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = talloc_array(ctx, char, (size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n)
        dt_die("cannot read %s", path);
    text[n] = 0;
    fclose(f);
    return text;
}

/* Split line at TABs into at most max fields (in place); returns the
 * number of fields. */
static unsigned
split_tabs(char *line, char **f, unsigned max)
{
    unsigned n = 0;

    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = 0;
            f[n++] = p + 1;
        }
    return n;
}

static void
read_requesters(struct acl_case *c, char *text)
{
    char *save = NULL, *f[5];

    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        if (split_tabs(l, f, 5) != 5)
            dt_die("requesters: want 5 TAB-separated fields: %s", l);
        c->rq = talloc_realloc(c, c->rq, struct acl_rq, c->nrq + 1);
        struct acl_rq *r = &c->rq[c->nrq++];
        r->kind = kind_parse(f[0]);
        r->label = talloc_strdup(c, f[1]);
        r->authz = talloc_strdup(c, f[2]);
        r->bind_dn = talloc_strdup(c, f[3]);
        r->password = talloc_strdup(c, f[4]);
    }
}

static void
split_attrs(struct acl_case *c, struct acl_search *s, const char *text)
{
    char *copy = talloc_strdup(c, text), *save = NULL;

    for (char *a = strtok_r(copy, " ", &save); a;
         a = strtok_r(NULL, " ", &save)) {
        if (!s->nattrs && !s->attrsonly && !strcmp(a, "-A")) {
            s->attrsonly = 1;
            continue;
        }
        s->attrs = talloc_realloc(c, s->attrs, char *, s->nattrs + 1);
        s->attrs[s->nattrs++] = a;
    }
}

static void
read_searches(struct acl_case *c, char *text)
{
    char *save = NULL, *f[5];

    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned n = split_tabs(l, f, 5);
        if (n < 4)
            dt_die("searches: want RQ, SCOPE, BASE, FILTER[, ATTRS]: %s", l);
        c->s = talloc_realloc(c, c->s, struct acl_search, c->ns + 1);
        struct acl_search *s = &c->s[c->ns++];
        memset(s, 0, sizeof *s);
        s->rq = (unsigned)strtoul(f[0], NULL, 10);
        if (s->rq >= c->nrq)
            dt_die("searches: no requester %u", s->rq);
        s->scope = acl_scope_parse(f[1]);
        s->base = talloc_strdup(c, f[2]);
        s->filter = talloc_strdup(c, f[3]);
        if (n == 5)
            split_attrs(c, s, f[4]);
    }
}

static const char *const op_names[] = {"compare", "modify", "add", "delete",
                                       "modrdn"};
static const unsigned op_args[][2] = {{2, 2}, {2, 3}, {2, 64}, {0, 0}, {2, 3}};

static void
read_ops(struct acl_case *c, char *text)
{
    char *save = NULL, *f[70];

    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        unsigned n = split_tabs(l, f, 70), k;
        for (k = 0; k < DT_NELEM(op_names) && n >= 2; k++)
            if (!strcmp(f[1], op_names[k]))
                break;
        if (n < 3 || k == DT_NELEM(op_names) || n - 3 < op_args[k][0] ||
            n - 3 > op_args[k][1] || (k == 2 && (n - 3) % 2))
            dt_die("ops: want RQ, OP, DN and OP's arguments: %s", l);
        c->ops = talloc_realloc(c, c->ops, struct acl_op, c->nops + 1);
        struct acl_op *o = &c->ops[c->nops++];
        o->rq = (unsigned)strtoul(f[0], NULL, 10);
        if (o->rq >= c->nrq)
            dt_die("ops: no requester %u: %s", o->rq, l);
        o->op = talloc_strdup(c, f[1]);
        o->dn = talloc_strdup(c, f[2]);
        o->nargs = n - 3;
        o->args = talloc_array(c, char *, o->nargs + 1);
        for (unsigned i = 0; i < o->nargs; i++)
            o->args[i] = talloc_strdup(c, f[3 + i]);
    }
}

struct acl_case *
acl_case_read(void *ctx, const char *dir)
{
    struct acl_case *c = talloc_zero(ctx, struct acl_case);
    char *t;

    if (!c)
        dt_die("out of memory");
    c->rules = slurp(c, dir, "rules.conf", 1);
    c->ldif = slurp(c, dir, "data.ldif", 1);
    if ((c->schemas = slurp(c, dir, "schemas", 0)))
        c->schemas[strcspn(c->schemas, "\n")] = 0;
    read_requesters(c, slurp(c, dir, "requesters", 1));
    t = slurp(c, dir, "searches", 1);
    read_searches(c, t);
    if ((t = slurp(c, dir, "ops", 0)))
        read_ops(c, t);
    return c;
}

/* ---- writing ----------------------------------------------------------- */

static void
put(const char *dir, const char *name, const char *text)
{
    dt_write_file(dir, name, text, strlen(text));
}

void
acl_case_write(const struct acl_case *c, const char *dir)
{
    void *tmp = talloc_new(NULL);
    char *rq = talloc_strdup(tmp, ""), *s = talloc_strdup(tmp, "");

    put(dir, "rules.conf", c->rules);
    put(dir, "data.ldif", c->ldif);
    if (c->schemas)
        put(dir, "schemas", talloc_asprintf(tmp, "%s\n", c->schemas));
    for (unsigned i = 0; i < c->nrq; i++) {
        const struct acl_rq *r = &c->rq[i];
        rq = talloc_asprintf_append(
            rq, "%s\t%s\t%s\t%s\t%s\n", acl_kind_name(r->kind), r->label,
            r->authz ? r->authz : "", r->bind_dn ? r->bind_dn : "",
            r->password ? r->password : "");
    }
    for (unsigned i = 0; i < c->ns; i++) {
        const struct acl_search *x = &c->s[i];
        s = talloc_asprintf_append(s, "%u\t%s\t%s\t%s\t", x->rq,
                                   acl_scope_name(x->scope), x->base,
                                   x->filter);
        if (x->attrsonly)
            s = talloc_asprintf_append(s, "-A%s", x->nattrs ? " " : "");
        for (unsigned j = 0; j < x->nattrs; j++)
            s = talloc_asprintf_append(s, "%s%s", j ? " " : "", x->attrs[j]);
        s = talloc_asprintf_append(s, "\n");
    }
    if (!rq || !s)
        dt_die("out of memory");
    put(dir, "requesters", rq);
    put(dir, "searches", s);
    if (c->nops) {
        char *o = talloc_strdup(tmp, "");
        for (unsigned i = 0; i < c->nops; i++) {
            const struct acl_op *x = &c->ops[i];
            o = talloc_asprintf_append(o, "%u\t%s\t%s", x->rq, x->op, x->dn);
            for (unsigned j = 0; j < x->nargs; j++)
                o = talloc_asprintf_append(o, "\t%s", x->args[j]);
            o = talloc_asprintf_append(o, "\n");
        }
        if (!o)
            dt_die("out of memory");
        put(dir, "ops", o);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/ops", dir);
        remove(path); /* a stale one */
    }
    talloc_free(tmp);
}

char *
acl_search_text(void *ctx, const struct acl_case *c, const struct acl_search *s)
{
    const struct acl_rq *r = &c->rq[s->rq];
    char *t = talloc_asprintf(ctx, "as %s", r->label);

    switch (r->kind) {
    case ACL_ANON:
        t = talloc_asprintf_append(t, " (anonymous)");
        break;
    case ACL_ROOT:
        t = talloc_asprintf_append(t, " (bound as %s)", r->bind_dn);
        break;
    case ACL_PROXY:
        t = talloc_asprintf_append(t, " (%s with proxied authz dn:%s)",
                                   r->bind_dn, r->authz);
        break;
    case ACL_BIND:
        t = talloc_asprintf_append(t, " (simple bind %s / %s)", r->bind_dn,
                                   r->password);
        break;
    }
    t = talloc_asprintf_append(t, ": %s-b \"%s\" -s %s \"%s\"",
                               s->attrsonly ? "-A " : "", s->base,
                               acl_scope_name(s->scope), s->filter);
    for (unsigned j = 0; j < s->nattrs; j++)
        t = talloc_asprintf_append(t, " %s", s->attrs[j]);
    return t;
}

char *
acl_ldif_dn(void *ctx, const char *rec)
{
    struct dt_str line, v;
    const char *p = rec;
    char *dn = NULL;

    if (strncasecmp(rec, "dn:", 3)) /* slapadd reads "DN:" too */
        return NULL;
    dt_str_init(&line);
    dt_str_init(&v);
    for (;;) { /* the logical line: folded continuations start with ' ' */
        size_t n = strcspn(p, "\n");
        dt_str_putn(&line, p, n);
        p += n;
        if (p[0] != '\n' || p[1] != ' ')
            break;
        p += 2;
    }
    if (line.p[3] == ':') {
        const char *b = line.p + 4 + strspn(line.p + 4, " ");
        if (!dt_base64_decode(&v, b, strlen(b)))
            dn = talloc_strndup(ctx, v.p, v.len);
    } else {
        dn = talloc_strdup(ctx, line.p + 3 + strspn(line.p + 3, " "));
    }
    dt_str_free(&line);
    dt_str_free(&v);
    return dn;
}

char *
acl_ldif_uncomment(void *ctx, const char *text)
{
    char *out = talloc_strdup(ctx, "");
    int comment = 0;

    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (p[0] != ' ')
            comment = p[0] == '#';
        if (!comment)
            out = talloc_asprintf_append(out, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    if (!out)
        dt_die("out of memory");
    return out;
}

/* ---- slapd.conf -------------------------------------------------------- */

/* The value of directive `key` on line l ("suffix \"dc=x\"" or bare), or
 * NULL when l is another directive. */
static char *
directive_value(void *ctx, const char *l, const char *key)
{
    size_t k = strlen(key);
    const char *p, *e;

    if (strncasecmp(l, key, k) || (l[k] != ' ' && l[k] != '\t'))
        return NULL;
    p = l + k + strspn(l + k, " \t");
    if (*p == '"') {
        e = strchr(++p, '"');
        if (!e)
            dt_die("rules.conf: unterminated quote: %s", l);
    } else {
        e = p + strcspn(p, " \t\n");
    }
    return talloc_strndup(ctx, p, (size_t)(e - p));
}

struct acl_db *
acl_case_dbs(void *ctx, const struct acl_case *c, unsigned *n)
{
    struct acl_db *v = NULL;
    unsigned nv = 0;
    const char *l = c->rules;

    for (; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        char *line = talloc_strndup(ctx, l, strcspn(l, "\n")), *x;
        if (!strncasecmp(line, "database", 8) &&
            (line[8] == ' ' || line[8] == '\t')) {
            v = talloc_realloc(ctx, v, struct acl_db, nv + 1);
            v[nv].suffix = v[nv].rootdn = NULL;
            nv++;
        } else if (nv && (x = directive_value(ctx, line, "suffix"))) {
            v[nv - 1].suffix = x;
        } else if (nv && (x = directive_value(ctx, line, "rootdn"))) {
            v[nv - 1].rootdn = x;
        }
        talloc_free(line);
    }
    *n = nv;
    return v;
}

/* Is l the line "WORD ..." (case-insensitive, WORD then a blank)? */
static int
directive(const char *l, const char *word)
{
    size_t n = strlen(word);
    return !strncasecmp(l, word, n) && (l[n] == ' ' || l[n] == '\t');
}

const acre_schema *
acl_slapd_schema(void)
{
    static acre_schema *s;

    if (!s && acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, NULL))
        dt_die("acre_schema_new failed");
    return s;
}

/* Is DN text dn within suffix (or is there no suffix to tell)? */
static int
under(const char *dn, const char *suffix)
{
    const acre_schema *slapd = acl_slapd_schema();
    acre_dn *d = NULL, *sfx = NULL;
    int in = 1;

    if (dn && suffix &&
        !acre_dn_parse(NULL, slapd, dn, strlen(dn), 0, &d, NULL) &&
        !acre_dn_parse(NULL, slapd, suffix, strlen(suffix), 0, &sfx, NULL))
        in = acre_dn_in_scope(d, sfx, ACRE_SCOPE_SUB) == 1;
    acre_dn_free(d);
    acre_dn_free(sfx);
    return in;
}

/* The end of a database section in the module's configuration: acre
 * decides, slapd's own rules grant everything (never consulted). */
static char *
module_db_end(char *conf, int in_db, const char *policy)
{
    if (!in_db)
        return conf;
    return talloc_asprintf_append(conf,
                                  "access to * by * manage\n"
                                  "overlay acre\n"
                                  "acre-policy %s\n",
                                  policy);
}

/* acl_case_conf's text; with so, acl_case_conf_module's. */
static char *
conf_text(void *ctx, const struct acl_case *c, const char *work,
          const char *rootpw, const char *so, const char *policy)
{
    char *conf = talloc_strdup(ctx, "# written by tests/differential/acl\n");
    char *schemas =
        talloc_strdup(ctx, c->schemas ? c->schemas : ACL_DEFAULT_SCHEMAS);
    char *save = NULL;
    unsigned db = 0;
    int in_access = 0;
    const char *l = c->rules, *suffix = NULL;

    for (char *s = strtok_r(schemas, " \t", &save); s;
         s = strtok_r(NULL, " \t", &save))
        conf = talloc_asprintf_append(
            conf, "include /etc/ldap/schema/%s.schema\n", s);
    conf = talloc_asprintf_append(conf,
                                  "pidfile %s/slapd.pid\n"
                                  "argsfile %s/slapd.args\n"
                                  "modulepath /usr/lib/ldap\n"
                                  "moduleload back_mdb\n",
                                  work, work);
    if (strstr(c->rules, "\noverlay collect")) /* slapo-collect */
        conf = talloc_asprintf_append(conf, "moduleload collect\n");
    if (so)
        conf = talloc_asprintf_append(conf, "moduleload %s\n", so);
    for (; *l; l += strcspn(l, "\n"), l += *l == '\n') {
        size_t n = strcspn(l, "\n");
        int cont = *l == ' ' || *l == '\t';
        if (so && !cont)
            in_access = directive(l, "access");
        if (so && directive(l, "database"))
            conf = module_db_end(conf, db > 0, policy);
        if (!(so && in_access))
            conf = talloc_asprintf_append(conf, "%.*s\n", (int)n, l);
        if (directive(l, "database"))
            conf = talloc_asprintf_append(conf,
                                          "directory %s/db-%u\n"
                                          "maxsize 1073741824\n"
                                          "dbnosync\n"
                                          "sizelimit unlimited\n",
                                          work, db++);
        /* slapd takes a rootpw only once the rootdn is known, and only
         * for a rootdn within the database's suffix (a glued database
         * may name its superior's rootdn) */
        char *v =
            directive(l, "suffix") ? directive_value(ctx, l, "suffix") : NULL;
        if (v)
            suffix = v;
        if (directive(l, "rootdn") &&
            under(directive_value(ctx, l, "rootdn"), suffix))
            conf = talloc_asprintf_append(conf, "rootpw %s\n", rootpw);
    }
    if (so)
        conf = module_db_end(conf, db > 0, policy);
    if (!conf)
        dt_die("out of memory");
    return conf;
}

char *
acl_case_conf(void *ctx, const struct acl_case *c, const char *work,
              const char *rootpw)
{
    return conf_text(ctx, c, work, rootpw, NULL, NULL);
}

char *
acl_case_conf_module(void *ctx, const struct acl_case *c, const char *work,
                     const char *rootpw, const char *so, const char *policy)
{
    return conf_text(ctx, c, work, rootpw, so, policy);
}
