"""The RISC-V mailboxes (BabyRISCV/Mailboxes.md): firmware on two cores passes values through
``TENSIX_MAILBOX{i}_BASE``; expected behaviour from the page (region i: a write goes to core i, a
read pops what core i wrote, bit 2 of the address asks whether anything is there; four values per
writer at most, a fifth write and a pop of an empty mailbox wait)."""

from __future__ import annotations

import struct
from pathlib import Path

from tdbg.emu.stops import StopKind
from tdbg.session import Session

HEADER = """#include "tensix.h"
#define MAILBOX(i) ((volatile uint32_t *)(0xFFEC0000u + 0x1000u * (i)))  /* B, T0, T1, T2 */
volatile uint32_t results[8] = {1};
"""


def firmware(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.c"
    path.write_text(HEADER + "int main(void)\n{\n" + body + "\n    return 0;\n}\n")
    return path


def results(s: Session, core: str, n: int) -> tuple[int, ...]:
    with s.on_core(core):
        return struct.unpack(f"<{n}I", s.read_memory(s.symbol("results").addr, 4 * n))


def test_values_pass_from_t1_to_t0_in_order(tmp_path: Path) -> None:
    # T1 writes five values to T0 (region 1); the fifth waits until T0 has popped one (four per
    # writer).  T0 pops from T1 (region 2): the first pop waits for T1; after it, the query
    # (address + 4) sees values left; after the fifth pop it sees none.
    t0 = firmware(tmp_path, "rx", """
    results[0] = MAILBOX(2)[0];
    results[1] = MAILBOX(2)[1];
    for (int i = 2; i < 6; i++)
        results[i] = MAILBOX(2)[0];
    results[6] = MAILBOX(2)[1];""")
    t1 = firmware(tmp_path, "tx", """
    for (uint32_t v = 1; v <= 5; v++)
        *MAILBOX(1) = 11 * v;""")
    s = Session({"T0": t0, "T1": t1})
    assert s.cont().kind is StopKind.EXITED
    assert results(s, "T0", 7) == (11, 1, 22, 33, 44, 55, 0)


def test_a_fifth_value_and_an_empty_pop_wait(tmp_path: Path) -> None:
    # Nobody reads what T1 writes, nobody writes to T2: T1's fifth write and T2's pop wait forever.
    t1 = firmware(tmp_path, "tx", """
    for (uint32_t v = 1; v <= 5; v++)
        *MAILBOX(3) = v;""")
    t2 = firmware(tmp_path, "rx", "    results[0] = MAILBOX(0)[0];")
    s = Session({"T1": t1, "T2": t2})
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK
    waits = {w.core: w.reason for w in stop.waits}
    assert "mailbox write" in waits["T1"] and "hold 4 values" in waits["T1"]
    assert "mailbox read" in waits["T2"] and "from B" in waits["T2"]


def test_a_preemption_inside_a_device_access_does_not_repeat_it(tmp_path: Path, monkeypatch) -> None:
    # tdbg.emu.preempt ends a turn with an emu_stop from another thread; landing while a device
    # hook runs, it aborts the accessing instruction after the device saw the access (Unicorn
    # stops before the instruction commits).  The instruction then runs again: its access must be
    # replayed (the load gets the value already taken), not done twice.  Forced here: the second
    # pop preempts T0 from inside its own hook.  (Before the fix: T0 read 7, 21, then waited for
    # a fourth value that never came.)
    from tdbg.emu.devices import mailboxes

    t0 = firmware(tmp_path, "rx", """
    for (int i = 0; i < 3; i++)
        results[i] = MAILBOX(2)[0];""")
    t1 = firmware(tmp_path, "tx", """
    for (uint32_t v = 1; v <= 3; v++)
        *MAILBOX(1) = 7 * v;""")
    s = Session({"T0": t0, "T1": t1})
    pops: list[int] = []
    real_pop = mailboxes.Mailboxes.pop

    def pop(self: mailboxes.Mailboxes, src: int, dst: int) -> int:
        pops.append(src)
        if len(pops) == 2:
            s.tile.cores["T0"].preempt()
        return real_pop(self, src, dst)

    monkeypatch.setattr(mailboxes.Mailboxes, "pop", pop)
    assert s.cont().kind is StopKind.EXITED
    assert len(pops) == 3 and results(s, "T0", 3) == (7, 14, 21)


def test_a_preemption_inside_a_semaphore_post_posts_once(tmp_path: Path, monkeypatch) -> None:
    # The same for a store: a RISC-V semaphore post (SyncUnit.md: a store of 0 increments) cut by a
    # preemption inside its hook increments once.  (Before the fix: twice, reading back 2.)
    from tdbg.tensix.coprocessor import Coprocessor

    t0 = firmware(tmp_path, "sem", """
    TTI(TT_OP_SEMINIT(1, 0, 15));           /* semaphore 0: value 0, max 15 */
    tdbg_wait_coprocessor_done();
    TDBG_SEMAPHORE(0) = 0;
    results[0] = TDBG_SEMAPHORE(0);""")
    s = Session({"T0": t0})
    posts: list[int] = []
    real_write = Coprocessor.riscv_semaphore_write

    def write(self: Coprocessor, index: int, value: int) -> None:
        posts.append(value)
        if len(posts) == 1:
            s.tile.cores["T0"].preempt()
        real_write(self, index, value)

    monkeypatch.setattr(Coprocessor, "riscv_semaphore_write", write)
    assert s.cont().kind is StopKind.EXITED
    assert posts == [0] and results(s, "T0", 1) == (1,)
