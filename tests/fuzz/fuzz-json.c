/* The strict JSON reader (private): accepts or rejects, never crashes, errors say where. */
#include <stdint.h>
#include <string.h>

#include "../../lib/json.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vp__json doc;
    vp_error err = VP_ERROR_INIT;
    vp_status st = vp__json_parse(&doc, (const char *)data, size, "fuzz.json", &err);
    if (st == VP_OK) {
        FUZZ_ASSERT(doc.n_nodes > 0);
        vp__json_free(&doc);
    } else {
        FUZZ_ASSERT(st < 0 && err.code == st);
        FUZZ_ASSERT(err.byte_offset <= size);
        FUZZ_ASSERT(err.line >= 1 && err.column >= 1);
        FUZZ_ASSERT(memchr(err.message, '\0', sizeof(err.message)) != NULL);
    }
    return 0;
}
