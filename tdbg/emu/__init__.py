"""The emulated Tensix tile: Unicorn cores, ELF loading, the devices of the map (``devices``),
run control, reverse execution, the toolchain."""
