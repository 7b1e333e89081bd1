"""The Tensix coprocessor model: number formats, Dst, SrcA/SrcB, config, the RISC-V Dst window.

Python + numpy (the hottest loops also in C: ``tdbg.native``, with the numpy code as their
reference); nothing here knows about Unicorn or the shell.
"""
