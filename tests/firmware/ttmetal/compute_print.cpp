// A compute kernel that only prints, for tdbg's DPRINT test: each of the three TRISCs its own line
// (DPRINT_UNPACK / _MATH / _PACK keep a print to one of them), and all three one more.
#include <cstdint>
#include "api/compute/common.h"
#include "api/debug/dprint.h"

void kernel_main() {
    uint32_t n = get_arg_val<uint32_t>(0);
    DPRINT_UNPACK("unpack: {} tiles\n", n);
    DPRINT_MATH("math: {:x} tiles\n", n + 250);
    DPRINT_PACK("pack: {:>5}\n", (int16_t)(-(int32_t)n));
    DPRINT("all: {}\n", n % 2 == 1);
}
