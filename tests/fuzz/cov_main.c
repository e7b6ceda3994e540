/*
 * cov_main.c -- a main for the fuzz targets outside libFuzzer, for
 * `make fuzz-cov`: each argument is a file or a directory of files (its
 * entries in name order, not recursing), and every file is run once
 * through LLVMFuzzerTestOneInput, after LLVMFuzzerInitialize when the
 * target has one.  Built with clang's source-based coverage, it measures
 * what a corpus reaches.  Prints the number of inputs run on standard
 * error; exits 2 when a file cannot be read.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* run_file -- path's bytes, in a buffer of exactly their size, through
 * the target; 0, or -1 when it cannot be read. */
static int
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *buf;
    size_t n;

    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return -1;
    }
    n = (size_t)st.st_size;
    buf = malloc(n ? n : 1);
    if (!buf || fread(buf, 1, n, f) != n) {
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* run_path -- a file, or every regular file of a directory; the count
 * run, or -1 on a read error (told). */
static long
run_path(const char *path)
{
    struct dirent **ents;
    struct stat st;
    long count = 0;
    int n;

    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return run_file(path) == 0 ? 1 : (perror(path), -1);
    if ((n = scandir(path, &ents, NULL, by_name)) < 0) {
        perror(path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char full[4096];
        snprintf(full, sizeof full, "%s/%s", path, ents[i]->d_name);
        if (count >= 0 && stat(full, &st) == 0 && S_ISREG(st.st_mode))
            count = run_file(full) == 0 ? count + 1 : (perror(full), -1);
        free(ents[i]);
    }
    free(ents);
    return count;
}

int
main(int argc, char **argv)
{
    long total = 0;

    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        long n = run_path(argv[i]);
        if (n < 0)
            return 2;
        total += n;
    }
    fprintf(stderr, "cov_main: %ld inputs run\n", total);
    return 0;
}
