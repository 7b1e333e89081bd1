/* tdbg's shim for SFPI's <sfpi.h>: only the instruction-modifier constants tt-llk's non-SFPI code
   names (its vector types need SFPI GCC; kernels that use them cannot be built with clang).
   The values are the ones tdbg's Vector Unit decodes (tdbg/tensix/sfpu): SFPLOADI.md Mod0,
   SFPLOAD.md / SFPSTORE.md Mod0 0 = MOD0_FMT_SRCB, SFPSETCC.md Mod1, SFPSHFT2.md Mod1. */
#pragma once

namespace sfpi {
constexpr unsigned SFPLOADI_MOD0_FLOATB = 0;
constexpr unsigned SFPLOADI_MOD0_UPPER = 8;
constexpr unsigned SFPLOADI_MOD0_LOWER = 10;
constexpr unsigned SFPLOAD_MOD0_FMT_SRCB = 0;
constexpr unsigned SFPSTORE_MOD0_FMT_SRCB = 0;
constexpr unsigned SFPSETCC_MOD1_LREG_NE0 = 2;
constexpr unsigned SFPSHFT2_MOD1_SUBVEC_SHFLROR1 = 3;
} // namespace sfpi
