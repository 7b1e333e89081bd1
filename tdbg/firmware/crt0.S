/*
 * crt0.S - start-up code for tdbg firmware (one baby RISC-V T core).
 *
 *   _start: sp = top of the core's local data RAM, zero .bss, call main(),
 *   store main's return value in tdbg_exit_code, then ebreak.
 *
 * tdbg treats ebreak as "the program has ended". tdbg_exit_code starts as
 * 0xDEADC0DE so a reader can tell "main never returned" from "returned 0".
 * Stack placement: BlackholeA0/TensixTile/BabyRISCV/README.md "Local Data RAM".
 */

    .section .text.start, "ax", @progbits
    .globl  _start
    .type   _start, @function
_start:
    .cfi_startproc
    .cfi_undefined ra               /* outermost frame: debuggers stop unwinding here */
    lui     sp, %hi(__stack_top)    /* 0xFFB01000, see tdbg.ld */
    addi    sp, sp, %lo(__stack_top)
    li      s0, 0                   /* no caller frame */
    li      ra, 0

    la      a0, __bss_start
    la      a1, __bss_end
1:  bgeu    a0, a1, 2f
    sw      zero, 0(a0)
    addi    a0, a0, 4
    j       1b

2:  call    main
    la      t0, tdbg_exit_code
    sw      a0, 0(t0)
    .globl  _tdbg_exit
_tdbg_exit:
    ebreak                          /* program ended */
    j       _tdbg_exit
    .cfi_endproc
    .size   _start, . - _start

    .section .data, "aw", @progbits
    .balign 4
    .globl  tdbg_exit_code
    .type   tdbg_exit_code, @object
tdbg_exit_code:
    .word   0xDEADC0DE
    .size   tdbg_exit_code, 4
