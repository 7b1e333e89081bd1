"""tdbg as tt-metal's simulator (``TT_METAL_SIMULATOR``): the folder tt-umd reads
(``folder``), the messages of its simulation protocol (``protocol``) and the server that answers
them on a session over a chip's grid of tiles (``server``)."""
