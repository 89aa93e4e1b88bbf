/* SPDX-License-Identifier: MIT */
/*
 * heat_internal.h - CPython's line heatmap: the per-line model
 * (heat_model.c) that the pages (heat_page.c, heat_index.c, with the
 * shared HTML pieces of heat_html.c) are written from.
 *
 * The model follows CPython 3.15's HeatmapCollector on every sample:
 *  - a frame counts when its file is not empty and does not start with
 *    '<' or '[' (and is not "__init__" at line 0); its line is the
 *    normalized lineno (a frame without a location is line 0), and lines
 *    below 0 are not shown;
 *  - self: the leaf frame's line (nothing when the leaf does not count);
 *  - total: every line on the stack, once per sample however often it
 *    appears (recursion);
 *  - opcodes: every frame with an opcode counts its instruction, keyed by
 *    (line, opcode, end line, column, end column), once per frame;
 *  - call edges: each counted frame and the frame that called it.
 * Keys are numbered by sorting frames by content (no hash table), so the
 * model and every page depend only on the profile's content. Memory is
 * bounded by the profile's frames and call-tree nodes.
 */
#ifndef TFMT_HEAT_INTERNAL_H
#define TFMT_HEAT_INTERNAL_H

#include "export_internal.h"

/* One sampled (file, line). */
typedef struct hline {
    uint32_t file; /* hfile index */
    int32_t line;  /* >= 0 */
    uint64_t self, total;
    uint32_t instr, ninstr;   /* its instructions: h->instrs[instr..] */
    uint32_t callee, ncallee; /* its calls: h->edges[callee..] */
    uint32_t fn;              /* the function it belongs to (the innermost
                               when several share it), TFMT_NO_ID */
} hline;

/* One instruction at one location of a line. */
typedef struct hinstr {
    uint32_t line; /* hline index */
    uint8_t opcode;
    int32_t end_line, col, end_col;
    uint64_t count;
} hinstr;

/* A function: (file, name) of counted frames. */
typedef struct hfunc {
    uint32_t file;            /* hfile index, TFMT_NO_ID: no page */
    uint32_t name;            /* profile string id */
    int32_t def_line;         /* its lowest sampled line (> 0 when any) */
    uint32_t caller, ncaller; /* h->by_callee[caller..] */
} hfunc;

/* Samples in which `line` (of a frame of `caller`) called `callee`. */
typedef struct hedge {
    uint32_t line, caller, callee;
    uint64_t count;
} hedge;

/*
 * The index groups files as CPython's does: a section per kind (project,
 * standard library, site-packages, other; heat_tree.c tells them from the
 * path alone, since the machine that recorded is not this one), then
 * folders by the module path. Sections are the dirs without a parent.
 */
enum { HSEC_PROJECT = 0, HSEC_STDLIB, HSEC_SITE, HSEC_OTHER, HSEC_COUNT };

typedef struct hdir {
    uint32_t parent;             /* TFMT_NO_ID for a section */
    uint8_t section;             /* HSEC_* */
    uint32_t file;               /* a file whose path spells the name */
    uint32_t name_off, name_len; /* the name, in that file's path */
    uint64_t total;              /* samples with a file below it on the stack */
    uint32_t nfiles;             /* files below it */
} hdir;

/* Where a file's source came from, for the index. */
enum { HSRC_NONE = 0, HSRC_FOUND, HSRC_MISSING };

typedef struct hfile {
    uint32_t name;         /* profile string id of the path */
    uint32_t line, nlines; /* h->lines[line..], by line number */
    uint64_t self;         /* samples whose leaf line is in the file */
    uint64_t total;        /* samples with the file on the stack */
    uint64_t line_sum;     /* CPython's "cumulative": line totals summed */
    uint64_t max_self, max_total;
    bool shown;                  /* a page of its own ('~', '.', '...' not) */
    uint32_t page;               /* page number, hottest first */
    uint8_t source;              /* HSRC_* */
    uint32_t dir;                /* its folder (hdir), shown files only */
    uint32_t mod_off;            /* module path: path[mod_off..], '/' for '.' */
    uint32_t name_off, name_len; /* its name in the folder (stem) */
} hfile;

struct tfmt_heatmap {
    tfmt_profile *p;
    const tfmt_allocator *alloc;
    tfmt_error err;
    hfile *files;
    uint32_t nfiles;
    uint32_t *pages; /* shown files by page number */
    uint32_t npages;
    hline *lines;
    uint32_t nlines;
    hinstr *instrs;
    uint32_t ninstrs;
    hfunc *funcs;
    uint32_t nfuncs;
    hedge *edges; /* by (line, callee, caller) */
    uint32_t nedges;
    uint32_t *by_callee; /* edge indices by (callee, caller, line) */
    hdir *dirs;          /* sections first (HSEC_COUNT of them) */
    uint32_t ndirs;
    uint8_t pyver[3];   /* names the opcodes; 0.0.0: unknown */
    bool pymixed;       /* inputs of several Python versions */
    bool opcodes;       /* some frame had an opcode */
    bool jsonl;         /* counts from JSONL exports (no stacks) */
    char page_name[32]; /* tfmt_heatmap_page's answer */
    /* scratch of the page writers */
    void *tmp_a, *tmp_b;    /* HEAT_TMP bytes per instruction, edge and
                               function, each */
    uint32_t *paint, *next; /* per byte of a source line */
    size_t paint_cap;
};

/* A sort key: qsort has no context, so keys travel with the id. */
typedef struct hkey {
    uint64_t a, b, c;
    uint32_t id;
} hkey;
/* By a, b, c, then id. */
int tfmt__heat_key_cmp(const void *x, const void *y);

/* Build the model (heat_model.c); TFMT_OK or TFMT_ENOMEM. */
int tfmt__heat_build(tfmt_heatmap *h);
void tfmt__heat_free_model(tfmt_heatmap *h);
/*
 * The sections and folders of the shown files (heat_tree.c), before the
 * walk counts their totals; files get their dir, module and name.
 */
int tfmt__heat_tree(tfmt_heatmap *h);

/* ---- one line's pieces (heat_line.c) ---- */

/* Bytes of scratch per model entry (the largest of heat_line.c's rows). */
#define HEAT_TMP 32

/* Its source text with the instructions' column spans. */
int tfmt__heat_code(tfmt_heatmap *h, tfmt_buf *b, const hline *l, const char *s,
                    size_t n);
/* Samples of its instructions, and of the specialized ones. */
void tfmt__heat_spec(const tfmt_heatmap *h, const hline *l, uint64_t *all,
                     uint64_t *spec);
/* Its bytecode panel (an instruction table), after its row. */
int tfmt__heat_panel(tfmt_heatmap *h, tfmt_buf *b, const hline *l);
/* Its links to callers and callees (a <div class="nv">, maybe empty). */
int tfmt__heat_nav(tfmt_heatmap *h, tfmt_buf *b, const hline *l);
/* CPython's name of an opcode of the log's version ("<N>" unknown);
 * *base: the instruction it specialises, NULL when it is not one. */
const char *tfmt__heat_opname(const tfmt_heatmap *h, uint8_t op, char tmp[8],
                              const char **base);

/* ---- HTML pieces (heat_html.c) ---- */

/* Text with &, <, >, " escaped, invalid UTF-8 as U+FFFD, control
 * characters as their Unicode pictures (U+2400...). */
int tfmt__heat_text(tfmt_buf *b, const char *s, size_t n);
/* The same for source code: control characters in caret notation. */
int tfmt__heat_code_text(tfmt_buf *b, const char *s, size_t n);
/* n with thousands separators ("12,345"). */
int tfmt__heat_count(tfmt_buf *b, uint64_t n);
/*
 * CPython's heat level 0-8 of n against max: intensity
 * log(n + 1) / log(max + 1), rounded to 3 decimals as the page's data
 * attribute carries it, in eighths (0 for n = 0).
 */
int tfmt__heat_level(uint64_t n, uint64_t max);
/* The same for an intensity x in [0, 1] (an index bar's). */
int tfmt__heat_level_of(double x);
/* The page's head: title, the stylesheet; then <body>. */
int tfmt__heat_head(tfmt_buf *b, const char *title, size_t title_len,
                    bool file_page);
/* "file_0012.html" for page `n`. */
void tfmt__heat_page_name(char out[32], uint32_t n);
/* What the counts came from: "Python 3.13.0 log", "JSONL export" (no
 * binary log) or "Python 3.13.0 log and JSONL exports". */
int tfmt__heat_origin(tfmt_buf *b, const tfmt_heatmap *h);
/* A file's path, as a profile string. */
tfmt_str tfmt__heat_path(const tfmt_heatmap *h, uint32_t file);
/* Record `rc` (a buffer or sink failure) on the heatmap. */
int tfmt__heat_fail(tfmt_heatmap *h, int rc, tfmt_sink *sink);

#endif
