/* SPDX-License-Identifier: MIT */
/*
 * test_source_read.c - --dump's source lines (linux/source_read.c), with
 * this process as the target: a line found, blanks and CR stripped, a
 * long line cut, a file without the line, and what is never read: a
 * FIFO (no wait), a device (/dev/zero, never opened for reading), a
 * directory, a relative name, a name that climbs out of the root.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "source_read.h"

static char dir[] = "/tmp/test_source_read_XXXXXX";
static char path[300];

static const char *file(const char *name, const char *text)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (text) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
    }
    return path;
}

TEST(lines)
{
    char buf[SOURCE_LINE_MAX];
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
    source_reader *r = source_reader_new(getpid(), 0);
    REQUIRE(r != NULL, "a reader for this process");
    const char *p = file("a.py", "import x\n\n    \tcall(1)  \r\nlast");
    CHECK(source_line(r, p, 1, buf, sizeof buf) == SOURCE_LINE &&
              strcmp(buf, "import x") == 0,
          "line 1: '%s'", buf);
    CHECK(source_line(r, p, 2, buf, sizeof buf) == SOURCE_NONE,
          "an empty line is no line");
    CHECK(source_line(r, p, 3, buf, sizeof buf) == SOURCE_LINE &&
              strcmp(buf, "call(1)  ") == 0,
          "blanks before and CR after stripped: '%s'", buf);
    CHECK(source_line(r, p, 4, buf, sizeof buf) == SOURCE_LINE &&
              strcmp(buf, "last") == 0,
          "a last line without newline: '%s'", buf);
    CHECK(source_line(r, p, 5, buf, sizeof buf) == SOURCE_NONE, "past end");
    CHECK(source_line(r, p, 0, buf, sizeof buf) == SOURCE_NONE, "line 0");
    CHECK(source_line(r, "a.py", 1, buf, sizeof buf) == SOURCE_NONE,
          "a relative name");
    source_reader_free(r);
}

TEST(long_line_cut)
{
    char buf[SOURCE_LINE_MAX], big[20000];
    memset(big, 'y', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\0';
    source_reader *r = source_reader_new(getpid(), 0);
    const char *p = file("long.py", big);
    CHECK(source_line(r, p, 1, buf, sizeof buf) == SOURCE_LINE &&
              strlen(buf) == SOURCE_LINE_MAX - 1,
          "cut at %d bytes: %zu", SOURCE_LINE_MAX - 1, strlen(buf));
    source_reader_free(r);
}

TEST(never_read)
{
    char buf[SOURCE_LINE_MAX];
    source_reader *r = source_reader_new(getpid(), 0);
    const char *p = file("fifo", NULL);
    REQUIRE(mkfifo(p, 0600) == 0, "mkfifo");
    time_t t0 = time(NULL);
    CHECK(source_line(r, p, 1, buf, sizeof buf) == SOURCE_NONE, "a FIFO");
    CHECK(time(NULL) - t0 < 2, "the FIFO was not waited on");
    unlink(p);
    CHECK(source_line(r, "/dev/zero", 1, buf, sizeof buf) == SOURCE_NONE,
          "a device");
    CHECK(source_line(r, dir, 1, buf, sizeof buf) == SOURCE_NONE,
          "a directory");
    source_reader_free(r);
}

TEST(changed_after_start)
{
    char buf[SOURCE_LINE_MAX];
    /* A process said to have started an hour before the file changed. */
    source_reader *r = source_reader_new(getpid(), (double)time(NULL) - 3600);
    const char *p = file("new.py", "x = 1\n");
    CHECK(source_line(r, p, 1, buf, sizeof buf) == SOURCE_CHANGED,
          "newer than the process");
    source_reader_free(r);
}

TEST(scan_bounds)
{
    char buf[64];
    int fd = open("/dev/zero", O_RDONLY);
    REQUIRE(fd >= 0, "/dev/zero");
    /* The scan alone stops after SOURCE_SCAN_MAX bytes of an endless
     * line (the reader never gets this far: a device is not opened). */
    time_t t0 = time(NULL);
    CHECK(!source_scan_line(fd, 2, buf, sizeof buf), "no line 2 in zeros");
    CHECK(time(NULL) - t0 < 5, "the scan ended");
    close(fd);
}

TEST(cleanup)
{
    unlink(file("a.py", NULL));
    unlink(file("long.py", NULL));
    unlink(file("new.py", NULL));
    CHECK(rmdir(dir) == 0, "scratch dir left behind");
}

TESTS(TCASE(lines), TCASE(long_line_cut), TCASE(never_read),
      TCASE(changed_after_start), TCASE(scan_bounds), TCASE(cleanup))
