"""The emulated Tensix tile: cores, ELF loading, address map, MMIO bridges, toolchain."""
