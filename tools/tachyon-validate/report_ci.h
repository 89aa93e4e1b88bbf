/* SPDX-License-Identifier: MIT */
/* report_ci.h - the CI output formats of tachyon-validate (report_ci.c). */
#ifndef TV_REPORT_CI_H
#define TV_REPORT_CI_H

#include <stdio.h>

#include "report.h"

/* Each writes the whole run's document to `out`; returns 0. */
int tv_write_json(const tv_report *rep, FILE *out);
int tv_write_junit(const tv_report *rep, FILE *out);
int tv_write_github(const tv_report *rep, FILE *out);

#endif
