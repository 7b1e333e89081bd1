"""tt-metal on one Tensix tile: its kernels built as tt-metal builds them (``kit``)."""
