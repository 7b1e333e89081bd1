/* tdbg's shim: newlib's <sys/_stdint.h> (SFPI GCC's C library), which one tt-llk header includes,
   is <stdint.h> in the C library zig provides. */
#pragma once
#include <stdint.h>
