// A user's own kernel (tests/ttnn_ops.py runs it through ttnn.generic_op): it prints COUNT lines
// numbered from FIRST, its two runtime arguments; built with LAST defined it asserts that the
// last number is at most LAST (a watcher build, TT_METAL_WATCHER=1, checks it).
#include <stdint.h>

#include "api/dataflow/dataflow_api.h"
#include "api/debug/assert.h"
#include "api/debug/dprint.h"

void kernel_main() {
    uint32_t first = get_arg_val<uint32_t>(0);
    uint32_t count = get_arg_val<uint32_t>(1);
    WAYPOINT("PRNT");
    for (uint32_t i = 0; i < count; i++) {
        DPRINT("step {} of {}\n", first + i, count);
    }
#if defined(LAST)
    ASSERT(first + count - 1 <= LAST);
#endif
}
