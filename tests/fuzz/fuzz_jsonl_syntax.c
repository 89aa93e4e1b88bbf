/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jsonl_syntax.c - the JSONL reader's JSON check (jsonl_syntax.c)
 * against json-c 0.16 on arbitrary lines. Invariant: the same error code
 * (json_tokener_error), the same parse end and, when the line parses, the
 * same kind of top-level value, for every input.
 */
#include <json-c/json.h>
#include <stdio.h>

#include "jsonl_internal.h"

static int json_c_top(json_object *o)
{
    if (!o)
        return TFMT_JSYN_TOP_NULL;
    if (json_object_is_type(o, json_type_object))
        return TFMT_JSYN_TOP_OBJECT;
    if (json_object_is_type(o, json_type_array))
        return TFMT_JSYN_TOP_ARRAY;
    return TFMT_JSYN_TOP_SCALAR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_tokener *tok;
    if (!tok) {
        tok = json_tokener_new_ex(32);
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
                                        JSON_TOKENER_VALIDATE_UTF8);
    }
    if (size > (1u << 20))
        return 0;
    json_tokener_reset(tok);
    json_object *o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    int code = (int)json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    int top = json_c_top(o);
    json_object_put(o);
    tfmt_jsyn v;
    tfmt__jsyn_check((const char *)data, size, &v);
    if (v.code != code || v.end != end ||
        (code == TFMT_JSYN_OK && v.top != top)) {
        fprintf(stderr,
                "fuzz_jsonl_syntax: json-c %d at %zu (top %d), "
                "jsonl_syntax %d at %zu (top %d)\n",
                code, end, top, v.code, v.end, v.top);
        abort();
    }
    return 0;
}
