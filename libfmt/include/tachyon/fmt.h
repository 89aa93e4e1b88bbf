/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt.h - umbrella header of libtachyonfmt, the format library of
 * the tachyon toolkit. Include this one header.
 */
#ifndef TACHYON_FMT_H
#define TACHYON_FMT_H

#include <tachyon/fmt_version.h>
#include "fmt_error.h"
#include "fmt_model.h"
#include "fmt_text.h"
#include "fmt_io.h"
#include "fmt_bin.h"
#include "fmt_profile.h"
#include "fmt_jsonl.h"
#include "fmt_rows.h"
#include "fmt_detect.h"
#include "fmt_match.h"
#include "fmt_flat.h"
#include "fmt_export.h"

#endif
