// A reader for ttnn's eltwise binary kernels (CBs 0 and 1 from DRAM buffers A and B), in tt-metal's
// dataflow API, for tdbg's tests.  PAGES_PER_PUSH pages are reserved, read and pushed at a time
// (a CB that holds fewer hangs it), and with NEVER_PUSH the pages are read but never pushed.  Built
// with the watcher (WATCHER_ENABLED), it sets waypoints and asserts it reads fewer than MAX_TILES tiles;
// with PRINT_EACH it DPRINTs PRINT_EACH lines a page (more than the print buffer holds).
#include <stdint.h>
#include "api/dataflow/dataflow_api.h"
#include "api/debug/assert.h"
#include "api/debug/dprint.h"
#include "api/debug/waypoint.h"

#ifndef PAGES_PER_PUSH
#define PAGES_PER_PUSH 1
#endif

void kernel_main() {
    uint32_t src0 = get_arg_val<uint32_t>(0);
    uint32_t src1 = get_arg_val<uint32_t>(1);
    uint32_t num_tiles = get_arg_val<uint32_t>(2);
    constexpr auto src0_args = TensorAccessorArgs<0>();
    constexpr auto src1_args = TensorAccessorArgs<src0_args.next_compile_time_args_offset()>();
    const uint32_t tile_bytes = get_tile_size(0);
    const auto s0 = TensorAccessor(src0_args, src0, tile_bytes);
    const auto s1 = TensorAccessor(src1_args, src1, tile_bytes);
    DPRINT("reader: {} tiles from {:#x} and {:#x}\n", num_tiles, src0, src1);
#ifdef MAX_TILES
    ASSERT(num_tiles < MAX_TILES);
#endif
    WAYPOINT("RD");
    for (uint32_t t = 0; t < num_tiles; t += PAGES_PER_PUSH) {
        cb_reserve_back(0, PAGES_PER_PUSH);
        cb_reserve_back(1, PAGES_PER_PUSH);
        for (uint32_t i = 0; i < PAGES_PER_PUSH; i++) {
            noc_async_read_tile(t + i, s0, get_write_ptr(0) + i * tile_bytes);
            noc_async_read_tile(t + i, s1, get_write_ptr(1) + i * tile_bytes);
        }
        noc_async_read_barrier();
#ifdef PRINT_EACH
        for (uint32_t i = 0; i < PRINT_EACH; i++) {
            DPRINT("page {} line {}: {} {:#06x} {:>4}\n", t, i, i % 2 == 0, (uint16_t)(t * 256 + i), (int8_t)(-(int32_t)i));
        }
#endif
#ifndef NEVER_PUSH
        cb_push_back(0, PAGES_PER_PUSH);
        cb_push_back(1, PAGES_PER_PUSH);
#endif
    }
    WAYPOINT("RDD");
    DPRINT("reader: done\n");
}
