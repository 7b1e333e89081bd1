"""tt-metal's Metal 2.0 kernel arguments (``experimental/kernel_args.h``), as its JIT build gives a
kernel them: ``kernel_args_generated.h`` (namespace ``args``: each named runtime argument an
``experimental::RtaArg<uint32_t>{byte offset}``, each named common runtime argument a
``CrtaArg<uint32_t>``, each named compile-time argument a ``CtaVal<uint32_t>{value}``; then
``get_vararg`` / ``get_common_vararg``, whose index 0 is the first word after the named ones) and
``kernel_bindings_generated.h`` (namespace ``dfb``: a ``DFBBindingToken`` per CB the kernel binds,
its id; namespace ``sem``: a ``SemaphoreBindingToken{ID, SemScope}`` per semaphore the kernel binds,
its id and the access mechanism the host resolved; namespace ``tensor``: per tensor binding a
``TensorBindingToken<CTA_OFFSET, ADDR_CRTA_OFFSET>`` type and token, the offset of its
``TensorAccessorArgs`` in the positional compile-time arguments and the byte offset of its base
address in the common runtime arguments).
Both are included before the kernel's source (``kernel_includes.hpp``, the TRISCs' ``chlkc_*.cpp``
prologs).  Facts: tt-metal's ``jit_build/genfiles.cpp`` (``write_kernel_args_generated_header``,
``write_kernel_bindings_generated_header``: RTAs and CRTAs in the host's order, CTAs sorted by
name, DFB entries sorted by name, tensors in binding order) and the 0.81.1 wheel's headers
(``api/dataflow/dfb_binding_token.h``; ``api/tensor/tensor_binding_token.h``, whose token is built
from an ``LLKMetadata``: its defaults, no format, here).  The semaphore lines as the 0.81.1 wheel's
``libtt_metal.so`` writes them (``emit_semaphore_binding_tokens``: ``namespace sem {``, per entry
``constexpr ::SemaphoreBindingToken NAME{IDu, ::SemScope::SCOPE};``, between the ``dfb`` and
``tensor`` namespaces) and ``api/dataflow/semaphore_binding_token.h`` (on Blackhole a data
movement binding is ``LOCAL_NONATOMIC``, a compute one ``COMPUTE_ATOMIC``, the Sync Unit's
semaphore).

Where the words go (tdbg's layout, tt-metal's rule): a kernel's runtime arguments are its named
ones in order, then its positional ones (the varargs); its common runtime arguments its named ones,
then each tensor binding's base address in binding order; each tensor's accessor arguments follow
the kernel's positional compile-time arguments, in binding order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

GENERATED = "// AUTO-GENERATED — do not edit.\n\n#pragma once\n\n"
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Metal2:
    """A Metal 2.0 kernel's schema: names and where each resolves."""

    rtas: tuple[str, ...] = ()                          # named runtime args, in order
    crtas: tuple[str, ...] = ()                         # named common runtime args, in order
    ctas: tuple[tuple[str, int], ...] = ()              # named compile-time args and their values
    dfbs: tuple[tuple[str, int], ...] = ()              # DFB accessor name -> CB (logical DFB) id
    tensors: tuple[tuple[str, int, int], ...] = ()      # (name, CTA offset, address CRTA byte offset)
    sems: tuple[tuple[str, int, str], ...] = ()         # sem accessor name -> (semaphore id, SemScope)

    def check(self) -> None:
        """Every name a C++ identifier, none twice in a namespace (a ``ValueError`` names it)."""
        for space, names in (("args", [*self.rtas, *self.crtas, *(n for n, _ in self.ctas)]),
                             ("dfb", [n for n, _ in self.dfbs]), ("tensor", [n for n, _, _ in self.tensors]),
                             ("sem", [n for n, _, _ in self.sems])):
            for name in names:
                if not _NAME.fullmatch(name):
                    raise ValueError(f"{space}::{name}: not a C++ identifier")
            twice = sorted({n for n in names if names.count(n) > 1})
            if twice:
                raise ValueError(f"{space}::{twice[0]} is declared twice")


def kernel_args_header(m: Metal2) -> str:
    """``kernel_args_generated.h``."""
    out = [GENERATED, '#include "experimental/kernel_args.h"\n\n']
    if m.rtas or m.crtas or m.ctas:
        out.append("namespace args {\n")
        out += [f"constexpr experimental::RtaArg<uint32_t> {name}{{{4 * i}}};\n" for i, name in enumerate(m.rtas)]
        out += [f"constexpr experimental::CrtaArg<uint32_t> {name}{{{4 * i}}};\n" for i, name in enumerate(m.crtas)]
        out += [f"constexpr experimental::CtaVal<uint32_t> {name}{{{value}u}};\n" for name, value in sorted(m.ctas)]
        out.append("}  // namespace args\n\n")
    out.append(f"FORCE_INLINE uint32_t get_vararg(uint32_t idx) {{ return get_arg_val<uint32_t>({len(m.rtas)} + idx); }}\n"
               f"FORCE_INLINE uint32_t get_common_vararg(uint32_t idx) {{ return get_common_arg_val<uint32_t>("
               f"{len(m.crtas) + len(m.tensors)} + idx); }}\n")
    return "".join(out)


def kernel_bindings_header(m: Metal2) -> str:
    """``kernel_bindings_generated.h``."""
    if not m.dfbs and not m.tensors and not m.sems:
        return GENERATED + "// No bindings for this kernel.\n"
    out = [GENERATED]
    if m.dfbs:
        out.append('#include "api/dataflow/dfb_binding_token.h"\n')
    if m.sems:
        out.append('#include "api/dataflow/semaphore_binding_token.h"\n')
    if m.tensors:
        out.append('#include "api/tensor/tensor_binding_token.h"\n')
    out.append("\n")
    if m.dfbs:
        out += ["namespace dfb {\n", *(f"constexpr DFBBindingToken {name}{{{id_}}};\n" for name, id_ in sorted(m.dfbs)),
                "}  // namespace dfb\n"]
    if m.sems:
        out += ["namespace sem {\n",
                *(f"constexpr ::SemaphoreBindingToken {name}{{{id_}u, ::SemScope::{scope}}};\n"
                  for name, id_, scope in sorted(m.sems)),
                "}  // namespace sem\n"]
    if m.tensors:
        out.append("namespace tensor {\n")
        for name, cta, crta in m.tensors:
            out.append(f"using {name}_t = ::tensor_accessor::TensorBindingToken<{cta}u, {crta}u>;\n"
                       f"constexpr {name}_t {name}{{binding_details::LLKMetadata{{}}}};\n")
        out.append("}  // namespace tensor\n")
    return "".join(out)


def includes(m: Metal2 | None) -> str:
    """What goes before the kernel's source: the two generated headers (nothing for a legacy kernel)."""
    return '#include "kernel_bindings_generated.h"\n#include "kernel_args_generated.h"\n' if m is not None else ""


def tensor_offsets(compile_args: int, crtas: int, tensors: Sequence[tuple[str, int]]) -> tuple[tuple[str, int, int], ...]:
    """(name, CTA offset, address CRTA byte offset) of each tensor binding, given the kernel's
    positional compile-time argument count, its named CRTA count and each tensor's accessor
    argument count (module docstring)."""
    out, cta = [], compile_args
    for i, (name, count) in enumerate(tensors):
        out.append((name, cta, 4 * (crtas + i)))
        cta += count
    return tuple(out)
