"""The GDB remote serial protocol stub: lets gdb-multiarch (or an IDE) debug the tile."""
