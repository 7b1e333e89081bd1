// tdbg's test driver for tt-metal's SFPU column cumulative sum (hw/ckernels/blackhole/metal/llk_api/
// llk_sfpu/ckernel_sfpu_cumsum.h, from the ttnn wheel), built as a tt-llk test source with tt-llk's
// trisc.cpp: the math thread runs the SFPU op on Dst tile 0 (which the test fills) the way tt-metal's
// cumsum_tile does (api/compute/cumsum.h: the op's init, then the op in VectorMode::RC_custom); the
// unpack and pack threads have nothing to do.

#include <cstdint>

#include "ckernel.h"
#include "llk_defs.h"

std::uint32_t unp_cfg_context          = 0;
std::uint32_t pack_sync_tile_dst_ptr   = 0;
std::uint32_t math_sync_tile_dst_index = 0;

#ifdef LLK_TRISC_MATH

#include "ckernel_sfpu_cumsum.h"
#include "llk_math_common.h"
#include "llk_math_eltwise_unary_sfpu_params.h"
#include "params.h"

void run_kernel(RUNTIME_PARAMETERS params)
{
    const FormatConfig& formats = params.formats;
    _llk_math_hw_configure_<is_fp32_dest_acc_en>(formats.math, formats.math);
    _llk_math_eltwise_unary_sfpu_init_<SfpuType::cumsum>();
    ckernel::sfpu::cumsum_init<false>();
    _llk_math_eltwise_unary_sfpu_params_(ckernel::sfpu::calculate_cumsum<false>, 0, VectorMode::RC_custom, true);
}

#else

#include "params.h"

void run_kernel(RUNTIME_PARAMETERS)
{
}

#endif
