/*
 * aci_driver.c -- the commands of the 389-DS ACI differential suite
 * (tests/differential/aci.sh runs them; make differential-389).
 *
 *   aci_driver gen SEED DIR     write case SEED into DIR (aci_gen.h);
 *                               prints the number of searches
 *   aci_driver compare DIR      compare DIR/389.out with DIR/acre.out
 *                               (aci_result.h); prints
 *                               "SEARCHES AGREE DIFFER NONEMPTY" and writes
 *                               a reproducer DIR/diff-N/ for each search N
 *                               that differs; exit 1 when any does
 *   aci_driver count DIR        print "SEARCHES NONEMPTY" for DIR/389.out
 *                               (record mode: 389's side alone)
 *   aci_driver norm FILE        print the normal form of every block
 *   aci_driver gen-ger SEED DIR write get-effective-rights case SEED into
 *                               DIR (aci_gen_ger); prints the number of
 *                               (requester, entry) pairs
 *   aci_driver compare-ger DIR  compare DIR/389.ger with DIR/acre.ger
 *                               (one block per line of DIR/gers: "# ger
 *                               N", then per entry its dn,
 *                               entryLevelRights and attributeLevelRights
 *                               lines, "# rc R"); prints "PAIRS AGREE
 *                               DIFFER" and writes DIR/gdiff-N-K/ for the
 *                               K-th entry of block N when the two differ
 *                               (at most 20 per case); exit 1 when any
 *                               does
 *
 * A reproducer directory holds data.ldif, `search` (the search line and
 * the two commands that replay it), 389.out / acre.out (the raw blocks)
 * and 389.norm / acre.norm (what was compared).
 */
#include "aci_gen.h"
#include "aci_result.h"
#include "dt_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static void
usage(void)
{
    fprintf(stderr, "usage: aci_driver gen SEED DIR | compare DIR | "
                    "count DIR | norm FILE | gen-ger SEED DIR | "
                    "compare-ger DIR\n");
    exit(2);
}

/* The n-th line (1-based) of text, as a heap string. */
static char *
nth_line(const char *text, unsigned n)
{
    for (unsigned i = 1; i < n && text; i++) {
        text = strchr(text, '\n');
        text = text ? text + 1 : NULL;
    }
    if (!text || !*text)
        return dt_strdup("");
    return dt_strndup(text, strcspn(text, "\n"));
}

static void
write_repro(const char *dir, unsigned k, const struct aci_answer *a,
            const struct aci_answer *b, const char *line, const char *ldif)
{
    char sub[4096];
    struct dt_str s;

    snprintf(sub, sizeof sub, "%s/diff-%u", dir, k);
    if (mkdir(sub, 0755) && errno != EEXIST)
        dt_die("%s: cannot create", sub);
    dt_write_file(sub, "data.ldif", ldif, strlen(ldif));
    dt_write_file(sub, "389.out", a->raw, strlen(a->raw));
    dt_write_file(sub, "acre.out", b->raw, strlen(b->raw));
    dt_write_file(sub, "389.norm", a->norm, strlen(a->norm));
    dt_write_file(sub, "acre.norm", b->norm, strlen(b->norm));
    dt_str_init(&s);
    dt_str_printf(&s,
                  "# BINDDN TAB PASSWORD TAB SCOPE TAB BASE TAB FILTER "
                  "TAB ATTRS (- : anonymous / all user attributes)\n%s\n"
                  "# replay each side (389's creates a private instance):\n"
                  "#   bash tests/differential/aci.sh acre-one build/acre "
                  "%s\n"
                  "#   bash tests/differential/aci.sh 389-one %s\n",
                  line, sub, sub);
    dt_write_file(sub, "search", s.p, s.len);
    dt_str_free(&s);
}

static int
cmd_compare(const char *dir)
{
    char p1[4096], p2[4096], p3[4096], p4[4096];
    unsigned na, nb, agree = 0, differ = 0, nonempty = 0;

    snprintf(p1, sizeof p1, "%s/389.out", dir);
    snprintf(p2, sizeof p2, "%s/acre.out", dir);
    snprintf(p3, sizeof p3, "%s/searches", dir);
    snprintf(p4, sizeof p4, "%s/data.ldif", dir);
    struct aci_answer *a = aci_answers_read(p1, &na);
    struct aci_answer *b = aci_answers_read(p2, &nb);
    char *searches = dt_read_file(p3, NULL);
    char *ldif = dt_read_file(p4, NULL);
    for (unsigned i = 0; i < na; i++) {
        nonempty += a[i].nentries > 0;
        if (i < nb && !strcmp(a[i].norm, b[i].norm) &&
            !strcmp(a[i].exact, b[i].exact)) {
            agree++;
            continue;
        }
        differ++;
        if (i < nb) {
            char *line = nth_line(searches, i + 1);
            write_repro(dir, i + 1, &a[i], &b[i], line, ldif);
            free(line);
        }
    }
    differ += nb > na ? nb - na : 0;
    printf("%u %u %u %u\n", na, agree, differ, nonempty);
    aci_answers_free(a, na);
    aci_answers_free(b, nb);
    free(searches);
    free(ldif);
    return differ ? 1 : 0;
}

static int
cmd_count(const char *dir)
{
    char path[4096];
    unsigned n, nonempty = 0;

    snprintf(path, sizeof path, "%s/389.out", dir);
    struct aci_answer *a = aci_answers_read(path, &n);
    for (unsigned i = 0; i < n; i++)
        nonempty += a[i].nentries > 0;
    printf("%u %u\n", n, nonempty);
    aci_answers_free(a, n);
    return 0;
}

static int
cmd_norm(const char *path)
{
    unsigned n;
    struct aci_answer *a = aci_answers_read(path, &n);

    for (unsigned i = 0; i < n; i++)
        printf("# search %u\n%s", i + 1, a[i].norm);
    aci_answers_free(a, n);
    return 0;
}

/* ---- get-effective-rights ------------------------------------------------ */

/* One entry of a GER answer: its DN as printed, as compared (lower case,
 * no spaces around ',' and '='), and its two rights lines. */
struct ger_ent {
    char *dn, *key, *rights;
};

struct ger_block {
    struct ger_ent *v;
    unsigned n;
    int rc;
};

/* ger_key -- dn without case or spaces around ',' '=' '+' */
static char *
ger_key(const char *dn)
{
    struct dt_str s;

    dt_str_init(&s);
    for (const char *p = dn; *p; p++) {
        if (*p == ' ') {
            const char *q = p;
            while (*q == ' ')
                q++;
            if (!*q || strchr(",=+", *q) ||
                (s.len && strchr(",=+", s.p[s.len - 1]) &&
                 (s.len < 2 || s.p[s.len - 2] != '\\'))) {
                p = q - 1;
                continue;
            }
        }
        dt_str_putc(&s, (char)(*p >= 'A' && *p <= 'Z' ? *p | 0x20 : *p));
    }
    return dt_str_take(&s);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ger_items -- attributeLevelRights in normal form: its "NAME:RIGHTS"
 * items with names in lower case, sorted (the order 389 lists them in
 * comes from its schema's hash tables; names are case-insensitive);
 * repeated items stay */
static char *
ger_items(const char *v)
{
    char *copy = dt_strdup(v), *save = NULL, **item = NULL;
    unsigned n = 0;
    struct dt_str s;

    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        char *colon = strrchr(t, ':');
        for (char *c = t; colon && c < colon; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c | 0x20 : *c);
        item = dt_realloc(item, (n + 1) * sizeof *item);
        item[n++] = t;
    }
    qsort(item, n, sizeof *item, cmp_str);
    dt_str_init(&s);
    for (unsigned i = 0; i < n; i++)
        dt_str_printf(&s, "%s%s", i ? ", " : "", item[i]);
    dt_str_putc(&s, '\0');
    s.len--;
    free(item);
    free(copy);
    return dt_str_take(&s);
}

/* ger_value -- the value of an LDIF line "name: v" or "name:: b64" */
static char *
ger_value(const char *line, size_t namelen)
{
    const char *v = line + namelen + 1;
    struct dt_str s;

    dt_str_init(&s);
    if (*v == ':') {
        v++;
        while (*v == ' ')
            v++;
        if (dt_base64_decode(&s, v, strlen(v)))
            dt_str_puts(&s, v);
        return dt_str_take(&s);
    }
    while (*v == ' ')
        v++;
    return dt_strdup(v);
}

static int
starts(const char *line, const char *name)
{
    size_t n = strlen(name);
    return !strncasecmp(line, name, n) && line[n] == ':';
}

/* ger_read -- the blocks of a GER answer file */
static struct ger_block *
ger_read(const char *path, unsigned *nblocks)
{
    char *text = dt_read_file(path, NULL), *save = NULL;
    struct ger_block *b = NULL;
    unsigned nb = 0;
    struct ger_ent *cur = NULL;
    struct dt_str rights;

    dt_str_init(&rights);
    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "# ger ", 6)) {
            b = dt_realloc(b, (nb + 1) * sizeof *b);
            memset(&b[nb++], 0, sizeof *b);
            cur = NULL;
        } else if (!nb) {
            continue;
        } else if (!strncmp(line, "# rc ", 5)) {
            b[nb - 1].rc = atoi(line + 5);
        } else if (starts(line, "dn")) {
            struct ger_block *k = &b[nb - 1];
            k->v = dt_realloc(k->v, (k->n + 1) * sizeof *k->v);
            cur = &k->v[k->n++];
            cur->dn = ger_value(line, 2);
            cur->key = ger_key(cur->dn);
            cur->rights = dt_strdup("");
        } else if (cur && (starts(line, "entryLevelRights") ||
                           starts(line, "attributeLevelRights"))) {
            char *v = ger_value(line, strchr(line, ':') - line);
            if (starts(line, "attributeLevelRights")) {
                char *w = ger_items(v);
                free(v);
                v = w;
            }
            dt_str_clear(&rights);
            dt_str_printf(&rights, "%s%s: %s\n", cur->rights,
                          starts(line, "entryLevelRights")
                              ? "entryLevelRights"
                              : "attributeLevelRights",
                          v);
            free(v);
            free(cur->rights);
            cur->rights = dt_strdup(rights.p);
        }
    }
    dt_str_free(&rights);
    free(text);
    *nblocks = nb;
    return b;
}

static void
ger_free(struct ger_block *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        for (unsigned k = 0; k < b[i].n; k++) {
            free(b[i].v[k].dn);
            free(b[i].v[k].key);
            free(b[i].v[k].rights);
        }
        free(b[i].v);
    }
    free(b);
}

static const struct ger_ent *
ger_find(const struct ger_block *b, const char *key)
{
    for (unsigned k = 0; b && k < b->n; k++)
        if (!strcmp(b->v[k].key, key))
            return &b->v[k];
    return NULL;
}

static void
ger_repro(const char *dir, unsigned n, unsigned k, const char *line,
          const char *dn, const char *a, const char *b, const char *ldif)
{
    char sub[4096];
    struct dt_str s;

    snprintf(sub, sizeof sub, "%s/gdiff-%u-%u", dir, n, k);
    if (mkdir(sub, 0755) && errno != EEXIST)
        dt_die("%s: cannot create", sub);
    dt_write_file(sub, "data.ldif", ldif, strlen(ldif));
    dt_write_file(sub, "389.ger", a, strlen(a));
    dt_write_file(sub, "acre.ger", b, strlen(b));
    dt_str_init(&s);
    dt_str_printf(&s,
                  "# REQUESTER TAB ENTRY TAB ATTRS (- : anonymous / no "
                  "attribute list)\n%.*s\t%s\t%s\n"
                  "# replay each side (389's creates a private instance):\n"
                  "#   bash tests/differential/ger.sh acre-one build/acre "
                  "%s\n"
                  "#   bash tests/differential/ger.sh 389-one %s\n",
                  (int)strcspn(line, "\t"), line, dn,
                  strchr(line, '\t') ? strchr(line, '\t') + 1 : "-", sub, sub);
    dt_write_file(sub, "ger", s.p, s.len);
    dt_str_free(&s);
}

static int
cmd_compare_ger(const char *dir)
{
    char p1[4096], p2[4096], p3[4096], p4[4096];
    unsigned na, nb, pairs = 0, agree = 0, differ = 0, written = 0;

    snprintf(p1, sizeof p1, "%s/389.ger", dir);
    snprintf(p2, sizeof p2, "%s/acre.ger", dir);
    snprintf(p3, sizeof p3, "%s/gers", dir);
    snprintf(p4, sizeof p4, "%s/data.ldif", dir);
    struct ger_block *a = ger_read(p1, &na);
    struct ger_block *b = ger_read(p2, &nb);
    char *gers = dt_read_file(p3, NULL);
    char *ldif = dt_read_file(p4, NULL);
    for (unsigned i = 0; i < na; i++) {
        const struct ger_block *bb = i < nb ? &b[i] : NULL;
        if (a[i].rc != 0 || a[i].n == 0)
            dt_die("%s: 389 answered GER question %u with rc %d and %u "
                   "entries",
                   dir, i + 1, a[i].rc, a[i].n);
        for (unsigned k = 0; k < a[i].n; k++) {
            const struct ger_ent *x = &a[i].v[k];
            const struct ger_ent *y = ger_find(bb, x->key);
            pairs++;
            if (y && !strcmp(x->rights, y->rights)) {
                agree++;
                continue;
            }
            differ++;
            if (written++ < 20) {
                char *line = nth_line(gers, i + 1);
                ger_repro(dir, i + 1, k + 1, line, x->dn, x->rights,
                          y ? y->rights : "(no answer)\n", ldif);
                free(line);
            }
        }
        /* an entry acre answered that 389 did not list */
        for (unsigned k = 0; bb && k < bb->n; k++)
            if (!ger_find(&a[i], bb->v[k].key))
                differ++, pairs++;
    }
    for (unsigned i = na; i < nb; i++)
        differ += b[i].n, pairs += b[i].n;
    printf("%u %u %u\n", pairs, agree, differ);
    ger_free(a, na);
    ger_free(b, nb);
    free(gers);
    free(ldif);
    return differ ? 1 : 0;
}

int
main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "gen")) {
        char *end;
        unsigned long long seed = strtoull(argv[2], &end, 10);
        if (*end || !*argv[2])
            usage();
        printf("%u\n", aci_gen_case(seed, argv[3]));
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "gen-ger")) {
        char *end;
        unsigned long long seed = strtoull(argv[2], &end, 10);
        if (*end || !*argv[2])
            usage();
        printf("%u\n", aci_gen_ger(seed, argv[3]));
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "compare-ger"))
        return cmd_compare_ger(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "compare"))
        return cmd_compare(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "count"))
        return cmd_count(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "norm"))
        return cmd_norm(argv[2]);
    usage();
}
