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
#include <sys/stat.h>

static void
usage(void)
{
    fprintf(stderr, "usage: aci_driver gen SEED DIR | compare DIR | "
                    "count DIR | norm FILE\n");
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
    if (argc == 3 && !strcmp(argv[1], "compare"))
        return cmd_compare(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "count"))
        return cmd_count(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "norm"))
        return cmd_norm(argv[2]);
    usage();
}
