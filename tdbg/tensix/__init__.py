"""The Tensix coprocessor model: number formats, Dst, SrcA/SrcB, config, the RISC-V Dst window.

Pure Python + numpy; nothing here knows about Unicorn or the shell.
"""
