/* tdbg's shim for SFPI's <lltt.h> (the low-level Tensix instruction interface tt-llk's ckernel.h
   includes), for stock clang, which has no __builtin_rvtt_ttreplay.

   REPLAY (WormholeB0 TensixCoprocessor/REPLAY.md; Blackhole encoding from tt-llk's assembly.yaml:
   opcode 0x04, Index [23:14], Count [13:4], Exec bit 1, Load bit 0) is pushed by a store to the
   thread's instruction buffer (BabyRISCV/PushTensixInstruction.md: a 32-bit store to
   INSTRN_BUF_BASE pushes the word as it is). */
#pragma once
#include <cstdint>

extern volatile std::uint32_t __instrn_buffer[];

namespace lltt {

enum ExecBool : bool { NoExec, Exec };

constexpr std::uint32_t replay_word(unsigned index, unsigned count, bool exec, bool load)
{
    return (0x04u << 24) | (index << 14) | (count << 4) | (unsigned(exec) << 1) | unsigned(load);
}

/* Record the next `count` instructions at `index` (executing them too when E is Exec). */
template <ExecBool E = NoExec>
inline void record(unsigned index, unsigned count)
{
    __instrn_buffer[0] = replay_word(index, count, E, true);
}

/* Play back `count` recorded instructions from `index`. */
inline void replay(unsigned index, unsigned count)
{
    __instrn_buffer[0] = replay_word(index, count, false, false);
}

/* The playback instruction as a word, for a MOP template. */
constexpr std::uint32_t replay_insn(unsigned index, unsigned count)
{
    return replay_word(index, count, false, false);
}

} // namespace lltt
