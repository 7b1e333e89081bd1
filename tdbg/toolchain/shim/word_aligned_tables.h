/* tdbg's SFPI stand-in, force-included into tt-metal firmware compiles.

   RISC-V GCC aligns a variable of array, structure or union type to the register width
   (-malign-data=xlen, its default: GCC manual, RISC-V Options); clang aligns it to its element.
   tt-metal's firmware copies its bank and coordinate tables from L1 with word loads and stores
   (l1_to_local_mem_copy, internal/firmware_common.h), relying on that: built with clang,
   worker_logical_col_to_virtual_col (uint8_t[]) landed at 0xffb00899 and ttsim stopped on the
   unaligned store (measured, 1x2 descriptor).  These redeclarations give the tables GCC's
   alignment; the definitions inherit it. */
#pragma once
#include "internal/firmware_common.h"

extern bank_noc_xy_t dram_bank_to_noc_xy[NUM_NOCS][NUM_DRAM_BANKS] __attribute__((aligned(4)));
extern int32_t bank_to_dram_offset[NUM_DRAM_BANKS] __attribute__((aligned(4)));
extern bank_noc_xy_t l1_bank_to_noc_xy[NUM_NOCS][NUM_L1_BANKS] __attribute__((aligned(4)));
extern int32_t bank_to_l1_offset[NUM_L1_BANKS] __attribute__((aligned(4)));
extern uint8_t worker_logical_col_to_virtual_col[round_up_to_mult_of_4(noc_size_x)] __attribute__((aligned(4)));
extern uint8_t worker_logical_row_to_virtual_row[round_up_to_mult_of_4(noc_size_y)] __attribute__((aligned(4)));
