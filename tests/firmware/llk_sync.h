/* llk_sync.h - the Sync Unit's semaphore and mutex numbers in the shape tt-llk gives them
 * (ckernel_structs.h: struct semaphore / struct mutex of namespace ckernel, constexpr static
 * members; the counts in a narrower type), for test firmware built as C++.  Written for tdbg's
 * tests; the names and numbers are tt-llk's facts. */
#pragma once
#include "../../tdbg/firmware/tensix.h"

namespace ckernel {
struct semaphore {
    constexpr static uint32_t FPU_SFPU = 0;
    constexpr static uint32_t MATH_PACK = 1;
    constexpr static uint32_t UNPACK_TO_DEST = 2;
    constexpr static uint32_t UNPACK_OPERAND_SYNC = 3;
    constexpr static uint32_t PACK_DONE = 4;
    constexpr static uint32_t UNPACK_SYNC = 5;
    constexpr static uint32_t UNPACK_MATH_DONE = 6;
    constexpr static uint32_t MATH_DONE = 7;
    constexpr static uint8_t NUM_SEMAPHORES = 8;        /* not an index */
    constexpr static uint8_t SEMAPHORE_BIT_COUNT = 4;   /* not semaphore 4 */
};
struct mutex {
    constexpr static uint32_t REG_RMW = 0;
    constexpr static uint32_t THREAD2_ADC = 3;
    constexpr static uint32_t SFPU = 4;
};
}  // namespace ckernel

#define TT_OP_ATGETM(Index) TT_OP(0xA0, TT_F(Index, 0, 16))   /* Blackhole encodings: ATGETM */
#define TT_OP_ATRELM(Index) TT_OP(0xA1, TT_F(Index, 0, 16))   /* ATRELM */

namespace ckernel {
/* As tt-llk's t6_mutex_acquire / t6_mutex_release: the instruction pushed by a store. */
inline void t6_mutex_acquire(uint32_t index) { TT_PUSH(TT_OP_ATGETM(index)); }
inline void t6_mutex_release(uint32_t index) { TT_PUSH(TT_OP_ATRELM(index)); }
}  // namespace ckernel
