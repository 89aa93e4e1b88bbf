/* SPDX-License-Identifier: MIT */
/*
 * dump.c - --dump, the first thing to reach for on a hung process: every
 * thread's stack, printed like CPython 3.15's `profiling.sampling`
 * one-shot dump (Lib/profiling/sampling/dump.py) in plain text:
 *
 *   Stack dump for PID 42, thread 42 (main thread, has GIL; most recent
 *   call last):
 *     File "app.py", line 7, in main
 *       work()
 *     File "app.py", line 3, in work
 *       time.sleep(1)
 *
 * File names under the current directory are shown relative to it; the
 * source line comes from the file as the target sees it, read with its
 * user's rights (source_read.h), or a note when the file changed after
 * the process started. Every name and line is printed escaped
 * (text_safe.h): the target chose them.
 */
#include "dump.h"

#include <string.h>
#include <unistd.h>

#include <tachyon/fmt.h>

#include "linetable.h"
#include "remote_mem.h"
#include "source_read.h"
#include "text_safe.h"

#define DUMP_TRIES 20

/* Free-threaded CPython has no GIL: HAS_GIL says the thread state is
 * attached (it runs Python code, or may). */
static void status_text(uint8_t st, bool no_gil, char *buf, size_t len)
{
    const struct {
        uint8_t bit;
        const char *label;
    } labels[] = {{TFMT_STATUS_MAIN_THREAD, "main thread"},
                  {TFMT_STATUS_HAS_GIL, no_gil ? "attached" : "has GIL"},
                  {TFMT_STATUS_ON_CPU, "on CPU"},
                  {TFMT_STATUS_GIL_REQUESTED, "waiting for GIL"},
                  {TFMT_STATUS_HAS_EXCEPTION, "has exception"}};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof labels / sizeof *labels; i++)
        if (st & labels[i].bit)
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? ", " : "", labels[i].label);
    bool state = st & (TFMT_STATUS_HAS_GIL | TFMT_STATUS_GIL_REQUESTED |
                       TFMT_STATUS_HAS_EXCEPTION);
    if (!state && !(st & (TFMT_STATUS_UNKNOWN | TFMT_STATUS_ON_CPU)))
        snprintf(buf + used, len - used, "%sidle", used ? ", " : "");
}

/* A file name relative to the current directory when it lies under it. */
static const char *display_name(const char *file, const char *cwd)
{
    size_t n = strlen(cwd);
    if (n > 1 && strncmp(file, cwd, n) == 0 && file[n] == '/')
        return file + n + 1;
    return file;
}

/* When the process started, in seconds since the epoch (0: unknown). */
static double process_start(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long long ticks = 0, btime = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    const char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", &ticks) != 1)
        return 0;
    f = fopen("/proc/stat", "r");
    while (f && fgets(buf, sizeof buf, f))
        if (sscanf(buf, "btime %llu", &btime) == 1)
            break;
    if (f)
        fclose(f);
    return btime ? (double)btime + (double)ticks / (double)sysconf(_SC_CLK_TCK)
                 : 0;
}

static void print_source(source_reader *src, const char *file, int lineno,
                         FILE *out)
{
    char line[SOURCE_LINE_MAX];
    source_result got = source_line(src, file, lineno, line, sizeof line);
    if (got == SOURCE_CHANGED) {
        fprintf(out, "    [source file changed after process started]\n");
    } else if (got == SOURCE_LINE) {
        fputs("    ", out);
        cli_escape_fputs(line, out);
        fputc('\n', out);
    }
}

static void print_opcode(const unwinder *u, uint8_t op, FILE *out)
{
    unsigned major = u->hexversion >> 24;
    unsigned minor = (u->hexversion >> 16) & 0xff;
    const char *name = tfmt_opcode_name(major, minor, op);
    const char *base =
        tfmt_opcode_name(major, minor, tfmt_opcode_base(major, minor, op));
    if (!name)
        fprintf(out, "  opcode=<%u>", op);
    else if (base && strcmp(base, name) != 0)
        fprintf(out, "  opcode=%s (%s)", name, base);
    else
        fprintf(out, "  opcode=%s", name);
}

static void print_frame(const unwinder *u, const raw_frame *f, const char *cwd,
                        source_reader *src, FILE *out)
{
    if (f->kind != FRAME_PYTHON) {
        fprintf(out, "  %s\n", f->kind == FRAME_GC ? "<GC>" : "<native>");
        return;
    }
    const code_entry *c = f->entry;
    py_location loc = linetable_lookup(c->linetable, c->linetable_len,
                                       c->firstlineno, unwind_addrq(u, f));
    fputs("  File \"", out);
    cli_escape_fputs(display_name(c->filename, cwd), out);
    fputc('"', out);
    if (loc.lineno > 0)
        fprintf(out, ", line %d", loc.lineno);
    fputs(", in ", out);
    cli_escape_fputs(c->qualname, out);
    if (u->cfg.opcodes && f->opcode != TFMT_NO_OPCODE)
        print_opcode(u, f->opcode, out);
    fputc('\n', out);
    print_source(src, c->filename, loc.lineno, out);
}

static void print_thread(const unwinder *u, const raw_thread *t, bool first,
                         bool interps, const char *cwd, source_reader *src,
                         FILE *out)
{
    char status[128], head[64] = "Stack dump";
    if (first)
        snprintf(head, sizeof head, "Stack dump for PID %d", (int)u->pid);
    status_text(t->status, u->off.free_threaded, status, sizeof status);
    fprintf(out, "%s%s, thread %llu (", first ? "" : "\n", head,
            (unsigned long long)t->tid);
    if (interps)
        fprintf(out, "interpreter %u; ", t->interp_id);
    fprintf(out, "%s%smost recent call last):\n", status,
            status[0] ? "; " : "");
    if (t->depth == 0)
        fprintf(out, "No Python frames\n");
    for (uint32_t i = t->depth; i-- > 0;)
        print_frame(u, &t->frames[i], cwd, src, out);
}

int dump_threads(unwinder *u, FILE *out)
{
    char cwd[4096];
    int rc = RMEM_FAULT;
    for (int i = 0; i < DUMP_TRIES && rc == RMEM_FAULT; i++)
        rc = unwind_sample(u);
    if (rc != RMEM_OK)
        return rc;
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    source_reader *src = source_reader_new(u->pid, process_start(u->pid));
    bool interps = false;
    for (uint32_t i = 1; i < u->nthreads; i++)
        interps |= u->threads[i].interp_id != u->threads[0].interp_id;
    if (u->nthreads == 0)
        fprintf(out, "No Python stacks found for PID %d\n", (int)u->pid);
    for (uint32_t i = 0; i < u->nthreads; i++)
        print_thread(u, &u->threads[i], i == 0, interps, cwd, src, out);
    source_reader_free(src);
    return RMEM_OK;
}
