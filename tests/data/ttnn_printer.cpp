// A user's own kernel (tests/ttnn_ops.py op_dprint runs it through ttnn.generic_op): it prints
// COUNT lines numbered from FIRST, its two runtime arguments.
#include <stdint.h>

#include "api/dataflow/dataflow_api.h"
#include "api/debug/dprint.h"

void kernel_main() {
    uint32_t first = get_arg_val<uint32_t>(0);
    uint32_t count = get_arg_val<uint32_t>(1);
    for (uint32_t i = 0; i < count; i++) {
        DPRINT("step {} of {}\n", first + i, count);
    }
}
