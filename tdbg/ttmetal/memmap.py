"""tt-metal 0.81.1's L1 map of a Blackhole Tensix tile: where its host puts things.

These are software conventions, not architecture: ``tt_metal/hw/inc/internal/tt-1xx/blackhole/
dev_mem_map.h`` of the ``ttnn`` 0.81.1 wheel, computed here with its own definitions (the
numbers in the comments are what they come to, and what tt-metal wrote on ttsim).
"""

from __future__ import annotations

# dev_mem_map.h: sizes
LOCAL_SIZE = {"B": 8 * 1024, "NC": 8 * 1024, "T0": 4 * 1024, "T1": 4 * 1024, "T2": 4 * 1024}   # MEM_*_LOCAL_SIZE
FIRMWARE_SIZE = {"B": 6 * 1024 + 2560, "NC": 2560, "T0": 2560, "T1": 2560, "T2": 2560}        # MEM_*_FIRMWARE_SIZE
ZEROS_SIZE = 512                             # MEM_ZEROS_SIZE
LLK_DEBUG_SIZE = 1024                        # MEM_LLK_DEBUG_SIZE
NOC_COUNTER_L1_SIZE = 5 * 2 * 2 * 4          # MEM_NOC_COUNTER_L1_SIZE
FABRIC_COUNTER_L1_SIZE = 3 * 2 * 4 + 8       # MEM_FABRIC_COUNTER_L1_SIZE
FABRIC_CONNECTION_LOCK_SIZE = 144            # MEM_FABRIC_CONNECTION_LOCK_SIZE
OFFSET_OF_ROUTING_PATHS = 516                # MEM_OFFSET_OF_ROUTING_PATHS
ROUTE_TABLE_SIZE_2D = 1160                   # MEM_TENSIX_ROUTING_PATH_SIZE
EXIT_NODE_TABLE_SIZE = 1024                  # MEM_EXIT_NODE_TABLE_SIZE
ROUTING_TABLE_PADDING = 4                    # MEM_ROUTING_TABLE_PADDING
FABRIC_CONNECTIONS_SIZE = 656                # MEM_TENSIX_FABRIC_CONNECTIONS_SIZE
PACKET_HEADER_POOL_SIZE = 144 * 6 * 2 * 2    # PACKET_HEADER_MAX_SIZE * NUM_PACKET_HEADERS
BANK_TO_NOC_SIZE = 1024 + 1024               # MEM_BANK_TO_NOC_XY_SIZE + MEM_BANK_OFFSET_SIZE

# dev_mem_map.h: addresses
MAILBOX_BASE = 96                            # MEM_MAILBOX_BASE (0x60)
MAILBOX_SIZE = 13440                         # MEM_MAILBOX_SIZE
MAILBOX_END = MAILBOX_BASE + MAILBOX_SIZE    # 0x34E0
ZEROS_BASE = (MAILBOX_END + 31) & ~31        # MEM_ZEROS_BASE
LLK_DEBUG_BASE = ZEROS_BASE + ZEROS_SIZE
_ORDER = ("B", "NC", "T0", "T1", "T2")


def _stacked(base: int, sizes: dict[str, int]) -> dict[str, int]:
    """Each core's area, one after another from ``base`` in the processors' order."""
    out = {}
    for core in _ORDER:
        out[core] = base
        base += sizes[core]
    return out


#: MEM_BRISC/NCRISC/TRISC0/1/2_FIRMWARE_BASE: 0x3AE0, 0x5CE0, 0x66E0, 0x70E0, 0x7AE0
FIRMWARE_BASE = _stacked(LLK_DEBUG_BASE + LLK_DEBUG_SIZE, FIRMWARE_SIZE)
NOC_COUNTER_BASE = FIRMWARE_BASE["T2"] + FIRMWARE_SIZE["T2"]
_ROUTING_TABLE_BASE = NOC_COUNTER_BASE + NOC_COUNTER_L1_SIZE + FABRIC_COUNTER_L1_SIZE + FABRIC_CONNECTION_LOCK_SIZE
_FABRIC_CONNECTIONS_BASE = (_ROUTING_TABLE_BASE + OFFSET_OF_ROUTING_PATHS + ROUTE_TABLE_SIZE_2D + EXIT_NODE_TABLE_SIZE
                            + ROUTING_TABLE_PADDING)
#: MEM_MAP_END (0xA080): the end of what firmware keeps; the rest is the host's.
MAP_END = _FABRIC_CONNECTIONS_BASE + FABRIC_CONNECTIONS_SIZE + PACKET_HEADER_POOL_SIZE


#: MEM_*_INIT_LOCAL_L1_BASE_SCRATCH: where the host puts each firmware's private-memory bytes
#: (0xA080, 0xC080, 0xE080, 0xF080, 0x10080), which its start-up code copies.
INIT_LOCAL_L1_BASE_SCRATCH = _stacked(MAP_END, LOCAL_SIZE)
NCRISC_INIT_IRAM_L1_BASE_SCRATCH = INIT_LOCAL_L1_BASE_SCRATCH["T2"] + LOCAL_SIZE["T2"]
#: MEM_BANK_TO_NOC_SCRATCH (0x13080): the bank tables the host writes and the firmware copies.
BANK_TO_NOC_SCRATCH = NCRISC_INIT_IRAM_L1_BASE_SCRATCH + LOCAL_SIZE["NC"]
#: MEM_LOGICAL_TO_VIRTUAL_SCRATCH (0x13880): worker columns, then rows at + round_up(NoC x size, 4).
LOGICAL_TO_VIRTUAL_SCRATCH = BANK_TO_NOC_SCRATCH + BANK_TO_NOC_SIZE
#: MEM_BOOT_CODE_BASE: BRISC's reset PC, where the host puts a jump to its firmware.
BOOT_CODE_BASE = 0

#: The kernel configuration buffer (``kernel_config_base[TENSIX]``): the host's L1 from MEM_MAP_END
#: (free once the firmware has copied its scratch), 69 KiB by default (tt-metal's worker L1
#: config, measured: kernel_config_base 0xA080, l1_unreserved_start 0x1B480 on ttsim).
KERNEL_CONFIG_BASE = MAP_END
KERNEL_CONFIG_SIZE = 69 * 1024
#: core_info.l1_unreserved_start: where the program's circular buffers and L1 buffers begin.
L1_UNRESERVED_START = KERNEL_CONFIG_BASE + KERNEL_CONFIG_SIZE
