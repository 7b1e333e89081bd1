/* tdbg's shim for SFPI's <sfpi.h>: only the instruction-modifier constants tt-llk's non-SFPI code
   names (its vector types need SFPI GCC; kernels that use them cannot be built with clang).
   The values are the ones tdbg's Vector Unit decodes (tdbg/tensix/sfpu): SFPLOADI.md Mod0,
   SFPLOAD.md / SFPSTORE.md Mod0 (0 MOD0_FMT_SRCB, 2 MOD0_FMT_BF16), SFPSETCC.md Mod1,
   SFPSHFT2.md Mod1 (in the page's order), BlackholeA0 SFPMUL24.md Mod1 (bit 0: the upper bits). */
#pragma once

namespace sfpi {
constexpr unsigned SFPLOADI_MOD0_FLOATB = 0;
constexpr unsigned SFPLOADI_MOD0_FLOATA = 1;
constexpr unsigned SFPLOADI_MOD0_USHORT = 2;
constexpr unsigned SFPLOADI_MOD0_SHORT = 4;
constexpr unsigned SFPLOADI_MOD0_UPPER = 8;
constexpr unsigned SFPLOADI_MOD0_LOWER = 10;
constexpr unsigned SFPLOAD_MOD0_FMT_SRCB = 0;
constexpr unsigned SFPLOAD_MOD0_FMT_FP16B = 2;
constexpr unsigned SFPSTORE_MOD0_FMT_SRCB = 0;
constexpr unsigned SFPSTORE_MOD0_FMT_FP16B = 2;
constexpr unsigned SFPSETCC_MOD1_LREG_LT0 = 0;
constexpr unsigned SFPSETCC_MOD1_LREG_NE0 = 2;
constexpr unsigned SFPSETCC_MOD1_LREG_GTE0 = 4;
constexpr unsigned SFPSETCC_MOD1_LREG_EQ0 = 6;
constexpr unsigned SFPSHFT2_MOD1_COPY4 = 0;
constexpr unsigned SFPSHFT2_MOD1_SUBVEC_CHAINED_COPY4 = 1;
constexpr unsigned SFPSHFT2_MOD1_SUBVEC_SHFLROR1_AND_COPY4 = 2;
constexpr unsigned SFPSHFT2_MOD1_SUBVEC_SHFLROR1 = 3;
constexpr unsigned SFPSHFT2_MOD1_SUBVEC_SHFLSHR1 = 4;
constexpr unsigned SFPSHFT2_MOD1_SHFT_LREG = 5;
constexpr unsigned SFPSHFT2_MOD1_SHFT_IMM = 6;
constexpr unsigned SFPMUL24_MOD1_LOWER = 0;
constexpr unsigned SFPMUL24_MOD1_UPPER = 1;
} // namespace sfpi

#ifdef TDBG_SFPI_DECLARATIONS
#include "sfpi_declarations.h"
#endif
